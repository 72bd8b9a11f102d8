/// Rebuilds a sealed segment's index file with bounded memory: the segment is scanned
/// once, its versions and their terms go through scratch sorters (`SpillSorter`), and
/// the file is streamed to `path` (FORMAT.md §7.7). The bytes are those
/// `IndexFileBuilder.scanning` makes in memory — the newest version of each key (the
/// greater sequence, or the later in the log), the terms of each kept live version
/// only — so `verify` agrees with either. A segment sealed around one huge transaction
/// (a chunked commit's, §4.7) is rebuilt holding the sorters' batches, not its keys.
struct IndexFileRebuild {
    let fileSystem: any FileSystem
    /// Scratch files are this path plus a suffix and `.tmp` (open removes them).
    let scratchBase: String
    let sortBatch: Int

    /// A version in scan order.
    private struct Version: SpillSortable {
        var entry: IndexEntry
        var ordinal: UInt64
        static func spillOrder(_ a: Version, _ b: Version) -> Bool {
            a.entry.key != b.entry.key ? a.entry.key < b.entry.key : a.ordinal < b.ordinal
        }
    }

    /// A term of the version with `ordinal`.
    private struct VersionTerm: SpillSortable {
        var term: IndexTermEntry
        var ordinal: UInt64
        static func spillOrder(_ a: VersionTerm, _ b: VersionTerm) -> Bool {
            if a.term.key != b.term.key { return a.term.key < b.term.key }
            if a.ordinal != b.ordinal { return a.ordinal < b.ordinal }
            return IndexTermEntry.precedes(a.term, b.term)
        }
    }

    /// Scans `segment` and writes its index file to `path` (written whole, then
    /// fsynced); returns the scan, which the caller checks for damage and the seal.
    func rebuild(_ segment: any StorageFile, segmentID: UInt32, storeID: [UInt8], to path: String) throws -> SegmentScanner.Result {
        var versions = SpillSorter<Version>(path: scratchBase + ".versions.tmp", fileSystem: fileSystem, runLimit: sortBatch,
                                            encode: { v, w in w.u64(v.ordinal); IndexFileEncoder.append(v.entry, to: &w) },
                                            decode: { r in let ordinal = try r.u64(); return Version(entry: try IndexFileEncoder.readEntry(&r, segment: segmentID), ordinal: ordinal) })
        var terms = SpillSorter<VersionTerm>(path: scratchBase + ".vterms.tmp", fileSystem: fileSystem, runLimit: sortBatch,
                                             encode: { t, w in w.u64(t.ordinal); IndexFileEncoder.append(t.term, to: &w) },
                                             decode: { r in let ordinal = try r.u64(); return VersionTerm(term: try IndexFileEncoder.readTerm(&r), ordinal: ordinal) })
        var kept = SpillSorter<IndexEntry>(path: scratchBase + ".kept.tmp", fileSystem: fileSystem, runLimit: sortBatch,
                                           encode: IndexFileEncoder.append, decode: { try IndexFileEncoder.readEntry(&$0, segment: segmentID) })
        var keptTerms = SpillSorter<IndexTermEntry>(path: scratchBase + ".kterms.tmp", fileSystem: fileSystem, runLimit: sortBatch,
                                                    encode: IndexFileEncoder.append, decode: IndexFileEncoder.readTerm)
        defer {
            versions.discard()
            terms.discard()
            kept.discard()
            keptTerms.discard()
        }
        var ordinal: UInt64 = 0
        // Records are taken as their frames are read, not a transaction at a time: a
        // segment sealed around one chunked commit is one transaction. Any damage the
        // scan reports makes the caller throw, so nothing taken early is kept.
        let scan = try SegmentScanner(file: segment, segmentID: segmentID, statistics: nil).scan(collect: false, provisional: true) { records in
            for scanned in records {
                let r = scanned.record
                try versions.add(Version(entry: IndexEntry(key: r.key, sequence: r.sequence, isTombstone: r.isTombstone, location: scanned.location, blobs: r.blobs),
                                         ordinal: ordinal))
                for t in r.terms {
                    try terms.add(VersionTerm(term: IndexTermEntry(index: t.index, value: TermBytes(t.value), key: r.key, sequence: r.sequence), ordinal: ordinal))
                }
                ordinal += 1
            }
        }
        // Damage, or no seal: the caller throws, and nothing is written.
        guard scan.damage == nil, scan.sealed else { return scan }

        // The newest version of each key, and the terms of the live ones.
        var allVersions = try versions.sorted()
        defer { allVersions.close() }
        var allTerms = try terms.sorted()
        defer { allTerms.close() }
        var nextTerm = try allTerms.next()
        func settle(_ best: Version) throws {
            try kept.add(best.entry)
            guard !best.entry.isTombstone else { return }
            while let t = nextTerm, t.term.key < best.entry.key || (t.term.key == best.entry.key && t.ordinal < best.ordinal) {
                nextTerm = try allTerms.next()
            }
            while let t = nextTerm, t.term.key == best.entry.key, t.ordinal == best.ordinal {
                try keptTerms.add(t.term)
                nextTerm = try allTerms.next()
            }
        }
        var best: Version?
        while let v = try allVersions.next() {
            if let current = best, current.entry.key == v.entry.key {
                if v.entry.isNewer(than: current.entry) { best = v }
            } else {
                if let current = best { try settle(current) }
                best = v
            }
        }
        if let current = best { try settle(current) }

        try IndexFileEncoder.stream(to: path, fileSystem: fileSystem, expectedEntries: kept.count) { encoder in
            try kept.drain { try encoder.add($0) }
            try keptTerms.drain { try encoder.add($0) }
            return try encoder.finish(segmentID: segmentID, storeID: storeID, minSequence: scan.minSequence == .max ? 0 : scan.minSequence,
                                      maxSequence: scan.maxSequence, recordBytes: scan.recordBytes, segmentLength: scan.validEnd)
        }
        return scan
    }
}
