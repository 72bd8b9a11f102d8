/// Encodes an index file (FORMAT.md §7) as its parts arrive: entries in key order,
/// then terms in term order, then the two fences, the filter and the footer.
///
/// Finished bytes go to `sink` whenever more than `drainAt` of them are waiting, so a
/// file of any size is written holding one block, the fences and the filter's bits —
/// the filter is sized by the entry count given up front, which is why the caller
/// must know it. `IndexFileBuilder.encode` keeps everything (no sink) and returns the
/// bytes: both give the same bytes for the same entries, which `verify` relies on.
struct IndexFileEncoder {
    static let blockSize = IndexFileBuilder.blockSize

    private var out: ByteWriter
    /// Bytes already handed to `sink` (offsets in the file are `drained + out.count`).
    private var drained = 0
    private let drainAt: Int
    private let sink: (([UInt8]) throws -> Void)?

    private var block = ByteWriter(capacity: IndexFileEncoder.blockSize + 128)
    private var inBlock: UInt32 = 0
    private var dataFence = ByteWriter(capacity: 64)
    private var dataFenceCount: UInt32 = 0
    private var termFence = ByteWriter(capacity: 64)
    private var termFenceCount: UInt32 = 0
    private var filterBits: [UInt8]
    private let filterBitCount: Int
    private let expectedEntries: Int

    private var lastKey: UInt64 = 0
    private var firstKey: UInt64?
    private var lastTerm: IndexTermEntry?
    /// Where the fence key of the last term added packed (`add(_: PackedTerm)`) lies in
    /// `block`, when it was: the term's bytes are there already, so the last block's
    /// fence is read from them at `finish` instead of being copied aside for every term.
    private var lastPackedFence: Range<Int>?
    private var entryCount = 0
    private var liveCount = 0
    private var termCount = 0
    private var termsStarted = false

    /// - Parameters:
    ///   - expectedEntries: how many entries will be added (the filter's size).
    ///   - sink: where finished bytes go, in order; nil keeps them for `finish` to return.
    init(expectedEntries: Int, drainAt: Int = 1 << 20, sink: (([UInt8]) throws -> Void)? = nil) {
        self.expectedEntries = expectedEntries
        self.sink = sink
        self.drainAt = sink == nil ? .max : drainAt
        out = ByteWriter(capacity: sink == nil ? expectedEntries * 40 + 4096 : drainAt + Self.blockSize + 256)
        filterBitCount = BloomFilter.bitCount(keys: expectedEntries)
        filterBits = [UInt8](repeating: 0, count: filterBitCount / 8)
        block.u32(0)
    }

    /// Streams an index file to `path`, created afresh and fsynced: `body` adds the
    /// entries and terms and returns what `finish` returned. On any error the file is
    /// removed (a chunked commit's and a rebuild's, FORMAT.md §4.7, §7.7).
    static func stream(to path: String, fileSystem: any FileSystem, expectedEntries: Int,
                       _ body: (inout IndexFileEncoder) throws -> [UInt8]) throws {
        try fileSystem.remove(path)
        let file = try fileSystem.open(path, mode: .create)
        do {
            var offset: Int64 = 0
            var encoder = IndexFileEncoder(expectedEntries: expectedEntries) { bytes in
                try file.write(bytes, at: offset)
                offset += Int64(bytes.count)
            }
            let rest = try body(&encoder)
            try file.write(rest, at: offset)
            try file.sync()
            try file.close()
        } catch {
            try? file.close()
            try? fileSystem.remove(path)
            throw error
        }
    }

    /// Adds the next entry; keys must rise strictly (one version per key).
    mutating func add(_ e: IndexEntry) throws {
        try checkEntriesOpen()
        Self.append(e, to: &block)
        try appended(key: e.key.rawValue, isPut: !e.isTombstone)
    }

    /// Adds the next entry as `append(_:to:)` encoded it, and returns its key: a chunked
    /// commit's scratch run holds its entries in these bytes, and a run of rising keys
    /// is copied into the blocks as it is, not decoded and encoded again. The bytes were
    /// read back from a file: their kind and blob count are checked, as decoding would.
    @discardableResult
    mutating func addEncoded(_ bytes: UnsafeRawBufferPointer) throws -> RecordKey {
        try checkEntriesOpen()
        guard bytes.count >= 35 else { throw StrataError(.corrupt, "a scratch index entry of \(bytes.count) bytes") }
        let key = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let kind = bytes[16]
        let blobs = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 33, as: UInt16.self)))
        guard kind == RecordKind.put.rawValue || kind == RecordKind.tombstone.rawValue, bytes.count == 35 + 24 * blobs else {
            throw StrataError(.corrupt, "a scratch index entry of key \(key) does not parse (kind \(kind), \(blobs) blobs in \(bytes.count) bytes)")
        }
        block.fixed(bytes.count) { $0.copyMemory(from: bytes) }
        try appended(key: key, isPut: kind == RecordKind.put.rawValue)
        return RecordKey(key)
    }

    private func checkEntriesOpen() throws {
        guard !termsStarted else { throw StrataError(.invalidArgument, "an index file's entries must all come before its terms") }
    }

    /// Counts an entry just put in the block, sets its key's filter bits, and closes
    /// the block once it is full.
    private mutating func appended(key: UInt64, isPut: Bool) throws {
        if firstKey == nil { firstKey = key }
        inBlock += 1
        lastKey = key
        entryCount += 1
        if isPut { liveCount += 1 }
        BloomFilter.set(RecordKey(key), bits: &filterBits, bitCount: filterBitCount)
        if block.count >= Self.blockSize {
            try flush(term: false) { $0.u64(key) }
        }
    }

    /// Adds the next term, after every entry, in `IndexTermEntry.precedes` order.
    mutating func add(_ t: IndexTermEntry) throws {
        if !termsStarted { try startTerms() }
        Self.append(t, to: &block)
        inBlock += 1
        termCount += 1
        lastTerm = t
        lastPackedFence = nil
        if block.count >= Self.blockSize {
            try flush(term: true) { Self.fenceKey(t, into: &$0) }
        }
    }

    /// Adds the next term from its packed bytes, which are a term block's own (§7.3):
    /// copied into the block as they are.
    mutating func add(_ t: PackedTerm) throws {
        if !termsStarted { try startTerms() }
        let start = block.count
        block.fixed(t.encoded.count) { $0.copyMemory(from: t.encoded) }
        inBlock += 1
        termCount += 1
        lastTerm = nil
        let fence = t.fenceKey
        lastPackedFence = start..<start + fence.count
        if block.count >= Self.blockSize {
            try flush(term: true) { $0.fixed(fence.count) { $0.copyMemory(from: fence) } }
        }
    }

    /// Ends the file: the last blocks, the fences, the filter and the footer. Returns
    /// the bytes not yet given to the sink (all of them without one).
    mutating func finish(segmentID: UInt32, storeID: [UInt8], minSequence: UInt64, maxSequence: UInt64,
                         recordBytes: Int64, segmentLength: Int64) throws -> [UInt8] {
        guard entryCount == expectedEntries else {
            throw StrataError(.invalidArgument, "index file of segment \(segmentID): \(entryCount) entries where \(expectedEntries) were announced")
        }
        if !termsStarted { try startTerms() }
        if let last = lastTerm { try flush(term: true) { Self.fenceKey(last, into: &$0) } }
        if let range = lastPackedFence, inBlock > 0 {
            let fence = Array(block.bytes[range])
            try flush(term: true) { $0.bytes(fence) }
        }
        let dataHandle = writeBlock(dataFence, count: dataFenceCount)
        let termHandle = writeBlock(termFence, count: termFenceCount)
        var filterBody = ByteWriter(capacity: filterBits.count + 8)
        filterBody.u8(BloomFilter.probes)
        filterBody.u32(UInt32(filterBitCount))
        filterBody.bytes(filterBits)
        let filterHandle = writeBlock(filterBody, count: nil)
        let footer = IndexFooter(segmentID: segmentID, storeID: storeID,
                                 minKey: firstKey ?? 0, maxKey: entryCount > 0 ? lastKey : 0,
                                 minSequence: minSequence, maxSequence: maxSequence, recordBytes: UInt64(max(0, recordBytes)),
                                 entryCount: UInt64(entryCount), liveCount: UInt64(liveCount), tombstoneCount: UInt64(entryCount - liveCount),
                                 termCount: UInt64(termCount), dataFence: dataHandle, termFence: termHandle, filter: filterHandle,
                                 segmentLength: UInt32(clamping: segmentLength))
        out.bytes(footer.encoded())
        let rest = out.bytes
        out = ByteWriter(capacity: 0)
        return rest
    }

    /// The data blocks end where the terms begin.
    private mutating func startTerms() throws {
        let last = lastKey
        try flush(term: false) { $0.u64(last) }
        termsStarted = true
        block = ByteWriter(capacity: Self.blockSize + 128)
        block.u32(0)
    }

    private mutating func flush(term: Bool, writeLast: (inout ByteWriter) -> Void) throws {
        guard inBlock > 0 else { return }
        block.patch(u32: inBlock, at: 0)
        block.u32(CRC32C.checksum(block.bytes))
        let offset = UInt64(drained + out.count)
        if term {
            writeLast(&termFence)
            termFence.u64(offset)
            termFence.u32(UInt32(block.count))
            termFenceCount += 1
        } else {
            writeLast(&dataFence)
            dataFence.u64(offset)
            dataFence.u32(UInt32(block.count))
            dataFenceCount += 1
        }
        out.bytes(block.bytes)
        block = ByteWriter(capacity: Self.blockSize + 128)
        block.u32(0)
        inBlock = 0
        if out.count >= drainAt, let sink {
            try sink(out.bytes)
            drained += out.count
            out = ByteWriter(capacity: drainAt + Self.blockSize + 256)
        }
    }

    private mutating func writeBlock(_ body: ByteWriter, count: UInt32?) -> IndexFooter.Handle {
        var b = ByteWriter(capacity: body.count + 8)
        if let count { b.u32(count) }
        b.bytes(body.bytes)
        b.u32(CRC32C.checksum(b.bytes))
        let handle = IndexFooter.Handle(offset: UInt64(drained + out.count), length: UInt64(b.count))
        out.bytes(b.bytes)
        return handle
    }

    // MARK: Entries and terms as the blocks hold them

    /// An entry as a data block holds it (FORMAT.md §7.2): key, sequence, kind, the
    /// location's four offsets (its segment is the file's), blob count and references.
    /// The fixed part goes in one copy, not integer by integer: a chunked commit's
    /// scratch runs hold entries in these same bytes, so it runs for every entry.
    static func append(_ e: IndexEntry, to w: inout ByteWriter) {
        w.fixed(35) { b in
            b.storeBytes(of: e.key.rawValue.littleEndian, toByteOffset: 0, as: UInt64.self)
            b.storeBytes(of: e.sequence.littleEndian, toByteOffset: 8, as: UInt64.self)
            b.storeBytes(of: (e.isTombstone ? RecordKind.tombstone : RecordKind.put).rawValue, toByteOffset: 16, as: UInt8.self)
            b.storeBytes(of: e.location.frameOffset.littleEndian, toByteOffset: 17, as: UInt32.self)
            b.storeBytes(of: e.location.frameLength.littleEndian, toByteOffset: 21, as: UInt32.self)
            b.storeBytes(of: e.location.recordOffset.littleEndian, toByteOffset: 25, as: UInt32.self)
            b.storeBytes(of: e.location.recordLength.littleEndian, toByteOffset: 29, as: UInt32.self)
            b.storeBytes(of: UInt16(truncatingIfNeeded: e.blobs.count).littleEndian, toByteOffset: 33, as: UInt16.self)
        }
        for blob in e.blobs { RecordCodec.encode(blob, into: &w) }
    }

    /// A term as a term block holds it (FORMAT.md §7.3): index, value length, value,
    /// key, sequence.
    static func append(_ t: IndexTermEntry, to w: inout ByteWriter) {
        let count = t.value.count
        w.fixed(6) { b in
            b.storeBytes(of: t.index.littleEndian, toByteOffset: 0, as: UInt32.self)
            b.storeBytes(of: UInt16(truncatingIfNeeded: count).littleEndian, toByteOffset: 4, as: UInt16.self)
        }
        t.value.append(to: &w)
        w.fixed(16) { b in
            b.storeBytes(of: t.key.rawValue.littleEndian, toByteOffset: 0, as: UInt64.self)
            b.storeBytes(of: t.sequence.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
    }

    /// An entry written by `append(_:to:)`, of segment `segment`, read back
    /// from a scratch run (the checked decoding of index files is `IndexFile.decodeSlots`).
    static func readEntry(_ r: inout ByteReader, segment: UInt32) throws -> IndexEntry {
        let key = RecordKey(try r.u64()), sequence = try r.u64(), tombstone = try r.u8() == RecordKind.tombstone.rawValue
        let location = RecordLocation(segment: segment, frameOffset: try r.u32(), frameLength: try r.u32(),
                                      recordOffset: try r.u32(), recordLength: try r.u32())
        let count = Int(try r.u16())
        var blobs: [BlobRef] = []
        if count > 0 {
            blobs.reserveCapacity(count)
            for _ in 0..<count { blobs.append(try RecordCodec.decodeBlob(&r)) }
        }
        return IndexEntry(key: key, sequence: sequence, isTombstone: tombstone, location: location, blobs: blobs)
    }

    /// A term written by `append(_:to:)`, read back from a scratch run.
    static func readTerm(_ r: inout ByteReader) throws -> IndexTermEntry {
        let index = try r.u32()
        let length = Int(try r.u16())
        let start = r.position
        try r.skip(length)
        let value = TermBytes(r.bytes[start..<start + length])
        return IndexTermEntry(index: index, value: value, key: RecordKey(try r.u64()), sequence: try r.u64())
    }

    static func fenceKey(_ t: IndexTermEntry, into w: inout ByteWriter) {
        w.u32(t.index)
        w.u16(UInt16(t.value.count))
        t.value.append(to: &w)
        w.u64(t.key.rawValue)
    }
}
