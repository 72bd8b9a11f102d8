extension LogStore {
    /// For a store opened read-only while another process writes it: takes in what
    /// that process has committed since the open or the last refresh. Returns whether
    /// anything changed.
    ///
    /// ```swift
    /// var options = LogStoreOptions()
    /// options.readOnly = true
    /// let reader = try LogStore.open(at: path, options: options)
    /// while running {
    ///     if try reader.refresh() { try pickUpChanges(reader) }
    ///     try await Task.sleep(for: .milliseconds(50))
    /// }
    /// ```
    ///
    /// A refresh reads the manifest. While it names the same files, the commits the
    /// writer appended to the active segment since the last scan are read and applied
    /// (a transaction whose commit frame is not written yet waits for the next
    /// refresh). Once the writer has swapped the manifest (a roll, a compaction, a
    /// migration), the store is opened again as an open would, and its index replaced
    /// whole; files the writer removes meanwhile make it try again, three times in all.
    /// Reads never see a transaction in part. A store opened for writing, and a
    /// snapshot, see everything already: for them it does nothing and returns false.
    ///
    /// - Throws: `.closed`; `.corrupt` for damage an open would refuse; `.io`.
    @discardableResult
    public func refresh() throws -> Bool {
        try refresh(accepting: { _ in nil })
    }

    /// ``refresh()``, refusing a new manifest whose metadata `refusal` finds an error
    /// in: the store then keeps answering as before, and the error is thrown (the
    /// object layer refuses a writer's migration this way, every time it refreshes).
    @discardableResult
    package func refresh(accepting refusal: ([String: [UInt8]]) -> StrataError?) throws -> Bool {
        guard options.readOnly, !isSnapshot else { return false }
        // The writer lock is a reader's refresh lock: a read-only store writes nothing.
        return try writer.withLock { w in
            let generation = try state.withLock { s in
                if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                return s.manifest.generation
            }
            let manifest = try ManifestWriter(fileSystem: fileSystem, paths: paths).read()
            if manifest.generation == generation, manifest.activeSegment?.id == w.segmentID {
                return try readNewCommits(&w)
            }
            if let refused = refusal(manifest.callerMetadata) { throw refused }
            try reopen(&w, accepting: refusal)
            return true
        }
    }

    /// Applies the transactions committed to the active segment after `w.segmentEnd`.
    private func readNewCommits(_ w: inout WriterState) throws -> Bool {
        guard let file = state.withLock({ $0.segmentFiles[w.segmentID] }), try file.size() > w.segmentEnd else { return false }
        var transactions: [[SegmentScanner.ScannedRecord]] = []
        let scanner = SegmentScanner(file: file, segmentID: w.segmentID, statistics: counters)
        // A transaction larger than the overlay holds is most often a chunked commit
        // the writer is still appending (an import): held until the end of the file to
        // be thrown away, it would cost memory in proportion on every refresh. The scan
        // stops at it, and a provisional scan, which holds no records, says whether a
        // commit frame closes it yet. Only a committed one is taken in whole (the writer
        // seals the segment around it at once, and the refresh after that opens again).
        var scan = try scanner.scan(collect: false, transactionLimit: max(1, options.overlayEntryLimit), from: w.segmentEnd) {
            transactions.append($0)
        }
        if scan.stoppedAtLargeTransaction,
           try scanner.scan(collect: false, provisional: true, from: scan.validEnd).validEnd > scan.validEnd {
            transactions = []
            scan = try scanner.scan(collect: false, from: w.segmentEnd) { transactions.append($0) }
        }
        guard scan.validEnd > w.segmentEnd, !transactions.isEmpty else { return false }
        // A damaged index file met here is repaired and the body run again: it goes on
        // from the transaction it stopped at (each is applied whole or not at all).
        var applied = 0
        try readIndex { s in
            while applied < transactions.count {
                try Self.apply(transactions[applied], to: &s)
                applied += 1
            }
        }
        state.withLock { $0.recordBytesBySegment[w.segmentID, default: 0] += scan.recordBytes }
        // The writer appends a blob before the commit that references it: the active
        // blob file's size now covers every blob of the commits applied (a backup copies
        // it up to `blobEnd`).
        if let blobFile = state.withLock({ $0.blobFiles[w.blobID] }) { w.blobEnd = max(w.blobEnd, try blobFile.size()) }
        w.segmentEnd = scan.validEnd
        w.segmentMaxSequence = max(w.segmentMaxSequence, scan.maxSequence)
        return true
    }

    /// Opens the store again and takes over its index, files and manifest.
    private func reopen(_ w: inout WriterState, accepting refusal: ([String: [UInt8]]) -> StrataError?) throws {
        var attempt = 0
        while true {
            attempt += 1
            do {
                let fresh = try Self.recover(paths: paths, options: options, fileSystem: fileSystem, logger: logger, lock: nil, cache: blockCache)
                let taken = fresh.state.withLock { $0 }
                // The manifest read may differ from the one the open read after it.
                if let refused = refusal(taken.manifest.callerMetadata) { throw refused }
                try state.withLock { s in
                    if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                    s = taken
                }
                w = fresh.writer.withLock { $0 }
                return
            } catch let error as StrataError where error.code != .closed && attempt < 3 {
                // The writer may have removed a file between the manifest read and its
                // open (a compaction's inputs): the next manifest no longer names it.
                logger.debug("refresh raced the writer; opening again", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }
}
