extension LogStore {
    /// A read-only view of the store as it stood after the transaction of sequence
    /// `sequence`, while commits, rolls and compaction go on: each key reads as its
    /// newest version at or below that sequence, and keys written only later are
    /// absent. Reads, ranges, term queries and counts all answer as of it.
    ///
    /// ```swift
    /// let then = try store.snapshot(asOf: sequence)
    /// defer { try? then.close() }
    /// let before = try then.get(RecordKey(1))   // as it was after that transaction
    /// ```
    ///
    /// ``lastSequence``, and any sequence from ``versionFloor`` to it, can be read.
    /// Compaction keeps the versions that needs only while a retention asks for them
    /// (the object layer's history does), and not for the keys a retention exempts
    /// (history's own), which may not read as they were; otherwise it drops superseded
    /// versions and raises the floor to the last sequence it compacted at (FORMAT.md §8).
    ///
    /// Taking one reads the segments that hold a version newer than `sequence` (the
    /// active one, and sealed ones whose sequences reach past it) twice: once to
    /// learn the keys written since, once for their older versions, which the older
    /// segments' index files give without a read. Memory grows with the keys written
    /// since `sequence`, not with the store. Close it when done, as ``snapshot()``.
    ///
    /// - Throws: `.historyTokenExpired` for a sequence below ``versionFloor``;
    ///   `.invalidArgument` for one above ``lastSequence``; `.corrupt` when a segment
    ///   it reads is damaged; `.closed`.
    public func snapshot(asOf sequence: UInt64) throws -> LogStore {
        let snapshot = try self.snapshot()
        do {
            try snapshot.rewind(to: sequence)
        } catch {
            snapshot.release()
            throw error
        }
        return snapshot
    }

    /// Turns a snapshot of the last commit into one as of `sequence`: each key
    /// written after it is given, in a new overlay that every read consults first,
    /// its newest version at or below it, or a tombstone where it has none.
    private func rewind(to sequence: UInt64) throws {
        let s = try state.withLock { s -> State in
            if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
            return s
        }
        let last = s.lastSequence
        guard sequence <= last else {
            throw StrataError(.invalidArgument, "sequence \(sequence) is after the store's last, \(last)", path: path,
                              context: ["sequence": "\(sequence)", "last": "\(last)"])
        }
        if sequence == last { return }
        let floor = s.manifest.versionFloor(lastSequence: last)
        guard sequence >= floor else {
            throw StrataError(.historyTokenExpired, "the store cannot be read as of sequence \(sequence): compaction kept versions from sequence \(floor) on",
                              path: path, context: ["sequence": "\(sequence)", "floor": "\(floor)"])
        }
        // Segments that may hold a version newer than `sequence`. The others' index
        // files list, for each key, a version no newer than it, the newest they hold.
        let reaching = s.manifest.segments.filter { $0.state == .active || $0.maxSequence > sequence }.map(\.id)
        func scan(_ body: (SegmentScanner.ScannedRecord) -> Void) throws {
            for id in reaching {
                guard let file = s.segmentFiles[id] else { throw StrataError(.corrupt, "segment not open", path: paths.segment(id)) }
                let active = s.manifest.activeSegment?.id == id
                // Records come a frame at a time, so that no transaction is held whole (a
                // chunked commit's, or one a writer is appending now). Past the active
                // segment's last commit frame lies a transaction being written or a torn
                // one: its sequence is above `last`, which keeps its records out.
                let result = try SegmentScanner(file: file, segmentID: id, statistics: counters).scan(collect: false, provisional: true) { records in
                    for r in records where r.record.sequence <= last { body(r) }
                }
                // The active segment may end in a commit being written now.
                if !active, let damage = result.damage {
                    throw StrataError(.corrupt, "sealed segment is damaged: \(damage.reason)", path: file.path, offset: damage.offset)
                }
            }
        }
        var written = Set<RecordKey>()
        try scan { r in if r.record.sequence > sequence { written.insert(r.record.key) } }
        var then: [RecordKey: (entry: IndexEntry, terms: [IndexTerm])] = [:]
        try scan { r in
            let record = r.record
            guard record.sequence <= sequence, written.contains(record.key) else { return }
            let entry = IndexEntry(key: record.key, sequence: record.sequence, isTombstone: record.isTombstone, location: r.location, blobs: record.blobs)
            if let known = then[record.key]?.entry, known.isNewer(than: entry) { return }
            then[record.key] = (entry, record.terms)
        }
        for file in s.index.files where file.footer.maxSequence <= sequence {
            for key in written {
                guard let entry = try file.entry(key) else { continue }
                if let known = then[key]?.entry, known.isNewer(than: entry) { continue }
                // Its terms are the file's: term reads find them there.
                then[key] = (entry, [])
            }
        }
        var index = s.index
        for key in written {
            if let now = try s.index.entry(key) { index.counters.remove(now) }
            if let past = then[key] {
                index.counters.add(past.entry)
                index.overlay.add(past.entry, terms: past.terms)
            } else {
                // Not written yet at `sequence`: a tombstone hides the later versions.
                let nowhere = RecordLocation(segment: 0, frameOffset: 0, frameLength: 0, recordOffset: 0, recordLength: 0)
                index.overlay.add(IndexEntry(key: key, sequence: 0, isTombstone: true, location: nowhere, blobs: []), terms: [])
            }
        }
        try state.withLock { t in
            if t.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
            t.index = index
            t.lastSequence = sequence
            t.readsAsOfThePast = true
        }
    }
}
