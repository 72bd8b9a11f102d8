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
    func encoded(segmentID: UInt32, storeID: [UInt8], minSequence: UInt64, maxSequence: UInt64, recordBytes: Int64, segmentLength: Int64) throws -> [UInt8] {
        let sorted = entries.sorted { $0.key < $1.key }
        var kept: [IndexTermEntry] = []
        kept.reserveCapacity(terms.count)
        for entry in sorted where !entry.isTombstone {
            if let range = termsByKey[entry.key] { kept.append(contentsOf: terms[range]) }
        }
        kept.sort(by: IndexTermEntry.precedes)
        return try Self.encode(entries: sorted, terms: kept, segmentID: segmentID, storeID: storeID,
                           minSequence: minSequence, maxSequence: maxSequence, recordBytes: recordBytes, segmentLength: segmentLength)
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
                       minSequence: UInt64, maxSequence: UInt64, recordBytes: Int64, segmentLength: Int64) throws -> [UInt8] {
        var encoder = IndexFileEncoder(expectedEntries: entries.count)
        for e in entries { try encoder.add(e) }
        try terms.forEach { try encoder.add($0) }
        return try encoder.finish(segmentID: segmentID, storeID: storeID, minSequence: minSequence, maxSequence: maxSequence,
                                  recordBytes: recordBytes, segmentLength: segmentLength)
    }

    /// Scans a sealed segment into an index file's bytes.
    static func scanning(_ file: any StorageFile, segmentID: UInt32, storeID: [UInt8]) throws -> (bytes: [UInt8], scan: SegmentScanner.Result) {
        var builder = IndexFileBuilder()
        let scan = try SegmentScanner(file: file, segmentID: segmentID, statistics: nil).scan(collect: false) { builder.add($0) }
        let bytes = try builder.encoded(segmentID: segmentID, storeID: storeID, minSequence: scan.minSequence == .max ? 0 : scan.minSequence,
                                    maxSequence: scan.maxSequence, recordBytes: scan.recordBytes, segmentLength: scan.validEnd)
        return (bytes, scan)
    }
}
