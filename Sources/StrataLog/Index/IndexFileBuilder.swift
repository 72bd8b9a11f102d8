/// Writes an index file (FORMAT.md §7) from a segment's entries: data blocks sorted by
/// key, term blocks sorted by (index, value, key), the two fences, the Bloom filter and
/// the footer. It gathers entries as a scan or a roll hands them over, keeping the
/// newest version per key, and sorts once at the end.
struct IndexFileBuilder {
    static let blockSize = 4 << 10

    private var positions: [RecordKey: Int] = [:]
    private(set) var entries: [IndexEntry] = []
    private var terms: [IndexTermEntry] = []
    private var termsByKey: [RecordKey: Range<Int>] = [:]

    var count: Int { entries.count }

    /// Adds a version; an older version of the same key already added is replaced.
    mutating func add(_ entry: IndexEntry, terms newTerms: [IndexTerm]) {
        if let at = positions[entry.key] {
            guard entry.isNewer(than: entries[at]) else { return }
            entries[at] = entry
        } else {
            positions[entry.key] = entries.count
            entries.append(entry)
        }
        // Terms of a replaced version stay in `terms`; `encoded` keeps only those whose
        // sequence matches the kept entry's.
        let start = terms.count
        for term in newTerms { terms.append(IndexTermEntry(index: term.index, value: TermBytes(term.value), key: entry.key, sequence: entry.sequence)) }
        termsByKey[entry.key] = start..<terms.count
    }

    mutating func add(_ records: [SegmentScanner.ScannedRecord]) {
        for scanned in records {
            let r = scanned.record
            add(IndexEntry(key: r.key, sequence: r.sequence, isTombstone: r.isTombstone, location: scanned.location, blobs: r.blobs), terms: r.terms)
        }
    }

    /// The file's bytes for segment `segmentID`.
    func encoded(segmentID: UInt32, storeID: [UInt8], minSequence: UInt64, maxSequence: UInt64, recordBytes: Int64, segmentLength: Int64) -> [UInt8] {
        let sorted = entries.sorted { $0.key < $1.key }
        var kept: [IndexTermEntry] = []
        kept.reserveCapacity(terms.count)
        for entry in sorted where !entry.isTombstone {
            if let range = termsByKey[entry.key] { kept.append(contentsOf: terms[range]) }
        }
        kept.sort(by: IndexTermEntry.precedes)
        return Self.encode(entries: sorted, terms: kept, segmentID: segmentID, storeID: storeID,
                           minSequence: minSequence, maxSequence: maxSequence, recordBytes: recordBytes, segmentLength: segmentLength)
    }

    /// Encodes entries sorted by key (one per key) and terms sorted by `IndexTermEntry.precedes`.
    static func encode(entries: [IndexEntry], terms: [IndexTermEntry], segmentID: UInt32, storeID: [UInt8],
                       minSequence: UInt64, maxSequence: UInt64, recordBytes: Int64, segmentLength: Int64) -> [UInt8] {
        var out = ByteWriter(capacity: entries.count * 40 + terms.count * 32 + 4096)
        var dataFence = ByteWriter(capacity: entries.count / 64 * 20 + 16)
        var fenceCount: UInt32 = 0
        var block = ByteWriter(capacity: blockSize + 128)
        var inBlock: UInt32 = 0
        var lastKey: UInt64 = 0

        func flush(into fence: inout ByteWriter, count: inout UInt32, writeLast: (inout ByteWriter) -> Void) {
            guard inBlock > 0 else { return }
            block.patch(u32: inBlock, at: 0)
            block.u32(CRC32C.checksum(block.bytes))
            writeLast(&fence)
            fence.u64(UInt64(out.count))
            fence.u32(UInt32(block.count))
            out.bytes(block.bytes)
            count += 1
            block = ByteWriter(capacity: blockSize + 128)
            inBlock = 0
        }

        block.u32(0)
        for e in entries {
            block.u64(e.key.rawValue)
            block.u64(e.sequence)
            block.u8(e.isTombstone ? RecordKind.tombstone.rawValue : RecordKind.put.rawValue)
            block.u32(e.location.frameOffset)
            block.u32(e.location.frameLength)
            block.u32(e.location.recordOffset)
            block.u32(e.location.recordLength)
            block.u16(UInt16(e.blobs.count))
            for blob in e.blobs { RecordCodec.encode(blob, into: &block) }
            inBlock += 1
            lastKey = e.key.rawValue
            if block.count >= blockSize {
                flush(into: &dataFence, count: &fenceCount) { $0.u64(lastKey) }
                block.u32(0)
            }
        }
        flush(into: &dataFence, count: &fenceCount) { $0.u64(lastKey) }

        var termFence = ByteWriter(capacity: 64)
        var termFenceCount: UInt32 = 0
        block = ByteWriter(capacity: blockSize + 128)
        block.u32(0)
        var lastTerm: IndexTermEntry?
        for t in terms {
            let value = t.value.bytes
            block.u32(t.index)
            block.u16(UInt16(value.count))
            block.bytes(value)
            block.u64(t.key.rawValue)
            block.u64(t.sequence)
            inBlock += 1
            lastTerm = t
            if block.count >= blockSize, let last = lastTerm {
                flush(into: &termFence, count: &termFenceCount) { Self.fenceKey(last, into: &$0) }
                block.u32(0)
            }
        }
        if let last = lastTerm { flush(into: &termFence, count: &termFenceCount) { Self.fenceKey(last, into: &$0) } }

        func writeBlock(_ body: ByteWriter, count: UInt32?) -> IndexFooter.Handle {
            var b = ByteWriter(capacity: body.count + 8)
            if let count { b.u32(count) }
            b.bytes(body.bytes)
            b.u32(CRC32C.checksum(b.bytes))
            let handle = IndexFooter.Handle(offset: UInt64(out.count), length: UInt64(b.count))
            out.bytes(b.bytes)
            return handle
        }
        let dataHandle = writeBlock(dataFence, count: fenceCount)
        let termHandle = writeBlock(termFence, count: termFenceCount)
        var filterBody = ByteWriter()
        filterBody.bytes(BloomFilter.build(keys: entries.map(\.key)))
        let filterHandle = writeBlock(filterBody, count: nil)

        let live = entries.reduce(0) { $0 + ($1.isTombstone ? 0 : 1) }
        let footer = IndexFooter(segmentID: segmentID, storeID: storeID,
                                 minKey: entries.first?.key.rawValue ?? 0, maxKey: entries.last?.key.rawValue ?? 0,
                                 minSequence: minSequence, maxSequence: maxSequence, recordBytes: UInt64(max(0, recordBytes)),
                                 entryCount: UInt64(entries.count), liveCount: UInt64(live), tombstoneCount: UInt64(entries.count - live),
                                 termCount: UInt64(terms.count), dataFence: dataHandle, termFence: termHandle, filter: filterHandle,
                                 segmentLength: UInt32(clamping: segmentLength))
        out.bytes(footer.encoded())
        return out.bytes
    }

    private static func fenceKey(_ t: IndexTermEntry, into w: inout ByteWriter) {
        let value = t.value.bytes
        w.u32(t.index)
        w.u16(UInt16(value.count))
        w.bytes(value)
        w.u64(t.key.rawValue)
    }

    /// Scans a sealed segment into an index file's bytes.
    static func scanning(_ file: any StorageFile, segmentID: UInt32, storeID: [UInt8]) throws -> (bytes: [UInt8], scan: SegmentScanner.Result) {
        var builder = IndexFileBuilder()
        let scan = try SegmentScanner(file: file, segmentID: segmentID, statistics: nil).scan(collect: false) { builder.add($0) }
        let bytes = builder.encoded(segmentID: segmentID, storeID: storeID, minSequence: scan.minSequence == .max ? 0 : scan.minSequence,
                                    maxSequence: scan.maxSequence, recordBytes: scan.recordBytes, segmentLength: scan.validEnd)
        return (bytes, scan)
    }
}
