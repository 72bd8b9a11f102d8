extension LogStore {
    /// Open's answer to an active segment holding a committed transaction larger than
    /// the overlay may hold — a chunked commit (FORMAT.md §4.7) whose process stopped
    /// after its commit frame and before its seal. Replaying it would put every one of
    /// its versions in memory; instead the segment is sealed where its transactions
    /// end, its index file is built through scratch sorters as a damaged one is rebuilt
    /// (`IndexFileRebuild`), and the counters move by a walk of that file in key order,
    /// each version looked up among the sealed files as a commit looks up what it
    /// replaces. Memory is the sorters' batches and a block at a time, not the
    /// transaction.
    ///
    /// Writes the seal frame unless the segment has one — `end` is then past it — and
    /// the index file beside its final name; returns what the roll that installs them
    /// needs (`finishRoll(_:alreadySealed:bulk:)`, which fsyncs the segment before it
    /// vouches for the seal) and the file opened.
    /// Safe to run again after a damaged index file was rebuilt: the seal is not
    /// written twice.
    static func sealAroundLargeTransaction(_ segment: any StorageFile, id: UInt32, scan: SegmentScanner.Result, end: inout Int64, index: StoreIndex,
                                           storeID: [UInt8], paths: StorePaths, fileSystem: any FileSystem, cache: BlockCache,
                                           sortBatch: Int) throws -> (bulk: BulkSeal, index: IndexFile) {
        let minSequence = scan.minSequence == .max ? 0 : scan.minSequence
        if !scan.sealed && end == scan.validEnd {
            let frame = sealFrame(min: minSequence, max: scan.maxSequence)
            try segment.write(frame, at: end)
            end += Int64(frame.count)
        }
        let temp = paths.indexFile(id) + ".tmp"
        let rebuild = IndexFileRebuild(fileSystem: fileSystem, scratchBase: paths.index + "/" + StorePaths.number(id) + ".rebuild", sortBatch: sortBatch)
        let sealed: SegmentScanner.Result
        do {
            sealed = try rebuild.rebuild(segment, segmentID: id, storeID: storeID, to: temp)
        } catch {
            try? fileSystem.remove(temp)
            throw error
        }
        // The segment was scanned sound up to its last commit and sealed there.
        guard sealed.damage == nil, sealed.sealed, sealed.validEnd == end else {
            try? fileSystem.remove(temp)
            throw StrataError(.corrupt, "the active segment changed while open sealed it: \(sealed.damage?.reason ?? "it does not end where its scan did")",
                              path: segment.path, offset: sealed.damage?.offset ?? sealed.validEnd)
        }
        let file = try fileSystem.open(temp, mode: .readOnly)
        let built: IndexFile
        do {
            built = try IndexFile(file: file, segmentID: id, storeID: storeID, cache: cache)
        } catch {
            try? file.close()
            throw error
        }
        // The counters of the sealed segments, moved by each version of this one from
        // the version it replaces, as the overlay's replay would have moved them.
        var counters = index.counters
        var memos = IndexFile.LookupMemo.perFile(index.files.count)
        try built.forEachEntry { entry in
            if let previous = try StoreIndex.sealedEntry(entry.key, in: index.files, memos: &memos) { counters.remove(previous) }
            counters.add(entry)
        }
        let bulk = BulkSeal(indexPath: temp, counters: counters, recordBytes: sealed.recordBytes, sequence: sealed.maxSequence, blobs: [])
        return (bulk, built)
    }
}
