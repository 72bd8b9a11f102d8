/// Writes an index file (FORMAT.md §7) from a segment's entries: data blocks sorted by
/// key, term blocks sorted by (index, value, key), the two fences, the Bloom filter and
/// the footer. It gathers entries as a scan or a roll hands them over, keeping the
/// newest version per key, and sorts once at the end.
struct IndexFileBuilder {
    static let blockSize = 4 << 10

    /// Where each key's entry is, once keys stopped arriving in ascending order: a scan
    /// or a compaction hands them over ascending, and needs no dictionary insert per
    /// entry.
    private var positions: [RecordKey: Int]?
    private(set) var entries: [IndexEntry] = []
    /// Every term added, packed (no term is an object of its own: an output holds
    /// several per record), in the order added.
    private var terms = PackedTerms()
    /// The terms of `entries[i]`: positions `termRanges[i]` in `terms`.
    private var termRanges: [Range<Int>] = []
    /// Whether a version replaced another, or a tombstone has terms: `terms` then holds
    /// some that the file does not.
    private var holdsUnwantedTerms = false

    var count: Int { entries.count }

    /// Adds a version; an older version of the same key already added is replaced.
    mutating func add(_ entry: IndexEntry, terms newTerms: [IndexTerm]) {
        add(entry) { terms in
            for term in newTerms { terms.append(index: term.index, value: term.value, key: entry.key, sequence: entry.sequence) }
        }
    }

    /// Adds a version whose terms are read from its record's bytes (compaction's copies).
    mutating func add(_ entry: IndexEntry, record: UnsafeRawBufferPointer, header: RecordCodec.Header) {
        add(entry) { terms in
            RecordCodec.forEachTerm(of: record, header: header) { index, value in
                terms.append(index: index, value: value, key: entry.key, sequence: entry.sequence)
            }
        }
    }

    private mutating func add(_ entry: IndexEntry, appendingTerms appendTerms: (inout PackedTerms) -> Void) {
        let at: Int?
        if var positions {
            at = positions[entry.key]
            if at == nil { positions[entry.key] = entries.count }
            self.positions = positions
        } else if let last = entries.last, entry.key <= last.key {
            if entry.key == last.key {
                at = entries.count - 1
            } else {
                var positions = [RecordKey: Int](minimumCapacity: entries.count * 2)
                for (i, e) in entries.enumerated() { positions[e.key] = i }
                at = positions[entry.key]
                if at == nil { positions[entry.key] = entries.count }
                self.positions = positions
            }
        } else {
            at = nil
        }
        if let at, !entry.isNewer(than: entries[at]) { return }
        // Terms of a replaced version stay in `terms`; `encoded` takes only the kept
        // entry's range.
        let start = terms.count
        appendTerms(&terms)
        if at != nil || (entry.isTombstone && terms.count > start) { holdsUnwantedTerms = true }
        if let at {
            entries[at] = entry
            termRanges[at] = start..<terms.count
        } else {
            entries.append(entry)
            termRanges.append(start..<terms.count)
        }
    }

    /// Forgets every entry and term, keeping their memory for the next file when
    /// `keepingCapacity` (compaction builds one output after another: each would
    /// otherwise allocate anew what the last one freed, and the heap grows between).
    mutating func removeAll(keepingCapacity: Bool) {
        positions = nil
        entries.removeAll(keepingCapacity: keepingCapacity)
        terms.removeAll(keepingCapacity: keepingCapacity)
        termRanges.removeAll(keepingCapacity: keepingCapacity)
        holdsUnwantedTerms = false
    }

    mutating func add(_ records: [SegmentScanner.ScannedRecord]) {
        for scanned in records {
            let r = scanned.record
            add(IndexEntry(key: r.key, sequence: r.sequence, isTombstone: r.isTombstone, location: scanned.location, blobs: r.blobs), terms: r.terms)
        }
    }

    /// The file's bytes for segment `segmentID`: all of them, or with a `sink`, those
    /// it was not handed as they were encoded (`IndexFileEncoder`), `drainAt` bytes
    /// at a time. `pause` is called now and then while the terms are sorted.
    func encoded(segmentID: UInt32, storeID: [UInt8], minSequence: UInt64, maxSequence: UInt64, recordBytes: Int64, segmentLength: Int64,
                 drainAt: Int = 1 << 20, sink: (([UInt8]) throws -> Void)? = nil, pause: (() -> Void)? = nil) throws -> [UInt8] {
        let order = positions == nil ? Array(entries.indices) : entries.indices.sorted { entries[$0].key < entries[$1].key }
        // The terms of the versions kept (and not deleted). When every term is one of
        // them, `kept` shares the term bytes (PackedBytes is a class) and the sort moves
        // a copy of the slots only; the bytes are reused by `removeAll` once `kept` is
        // gone. Their order is the sort's to make, not the entries'.
        var kept = terms
        if holdsUnwantedTerms {
            kept = PackedTerms()
            terms.withTermsInOrder { term in
                for i in order where !entries[i].isTombstone {
                    for position in termRanges[i] { kept.append(encoded: term(position).encoded) }
                }
            }
        }
        kept.sort(pause: pause)
        return try Self.encode(entries: positions == nil ? entries : order.map { entries[$0] }, terms: kept, segmentID: segmentID, storeID: storeID,
                               minSequence: minSequence, maxSequence: maxSequence, recordBytes: recordBytes, segmentLength: segmentLength,
                               drainAt: drainAt, sink: sink)
    }

    /// Encodes entries sorted by key (one per key) and terms sorted by `IndexTermEntry.precedes`.
    static func encode(entries: [IndexEntry], terms: [IndexTermEntry], segmentID: UInt32, storeID: [UInt8],
                       minSequence: UInt64, maxSequence: UInt64, recordBytes: Int64, segmentLength: Int64) throws -> [UInt8] {
        var encoder = IndexFileEncoder(expectedEntries: entries.count)
        for e in entries { try encoder.add(e) }
        for t in terms { try encoder.add(t) }
        return try encoder.finish(segmentID: segmentID, storeID: storeID, minSequence: minSequence, maxSequence: maxSequence,
                                  recordBytes: recordBytes, segmentLength: segmentLength)
    }

    /// Encodes entries sorted by key (one per key) and packed terms, sorted.
    static func encode(entries: [IndexEntry], terms: PackedTerms, segmentID: UInt32, storeID: [UInt8],
                       minSequence: UInt64, maxSequence: UInt64, recordBytes: Int64, segmentLength: Int64,
                       drainAt: Int = 1 << 20, sink: (([UInt8]) throws -> Void)? = nil) throws -> [UInt8] {
        var encoder = IndexFileEncoder(expectedEntries: entries.count, drainAt: drainAt, sink: sink)
        for e in entries { try encoder.add(e) }
        try terms.forEach { try encoder.add($0) }
        return try encoder.finish(segmentID: segmentID, storeID: storeID, minSequence: minSequence, maxSequence: maxSequence,
                                  recordBytes: recordBytes, segmentLength: segmentLength)
    }

    /// Scans a sealed segment into an index file's bytes. The caller refuses the result
    /// when the scan reports damage, so the records come a frame at a time (provisional):
    /// a chunked commit's transaction, which may be hundreds of MiB, is never held whole.
    static func scanning(_ file: any StorageFile, segmentID: UInt32, storeID: [UInt8]) throws -> (bytes: [UInt8], scan: SegmentScanner.Result) {
        var builder = IndexFileBuilder()
        let scan = try SegmentScanner(file: file, segmentID: segmentID, statistics: nil).scan(collect: false, provisional: true) { builder.add($0) }
        let bytes = try builder.encoded(segmentID: segmentID, storeID: storeID, minSequence: scan.minSequence == .max ? 0 : scan.minSequence,
                                    maxSequence: scan.maxSequence, recordBytes: scan.recordBytes, segmentLength: scan.validEnd)
        return (bytes, scan)
    }
}
