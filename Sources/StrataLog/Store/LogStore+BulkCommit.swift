import Dispatch

/// What a bulk commit hands the roll that seals its segment: the index file written
/// beside its final name, and what becomes visible with it.
struct BulkSeal {
    var indexPath: String
    var counters: IndexCounters
    var recordBytes: Int64
    var sequence: UInt64
    /// Blobs the transaction's records reference: no longer pending once it is visible.
    var blobs: [BlobRef]
}

extension LogStore {
    /// Commits one transaction handed over in chunks, so that a write of any size —
    /// a million-object import, a bulk insert — holds one chunk at a time rather than
    /// the whole transaction.
    ///
    /// `produce` fills the empty batch it is given with the next chunk and returns
    /// whether more chunks follow; `writeBlob` writes a blob for the chunk's records
    /// (the store's `writeBlob` would wait for the lock this commit holds). All chunks
    /// become visible together, or none does.
    ///
    /// A transaction of one chunk is an ordinary `commit`. A longer one gets a segment
    /// of its own (the active segment is sealed first if it holds anything): each
    /// chunk's records frames are appended as they come, without a commit frame, and
    /// its index entries and terms go to a sorter that spills to `index/`. When the last
    /// chunk is in, the sorted entries and terms are written as the segment's index
    /// file (`.tmp`), then the commit frame, then the segment is sealed and the index
    /// file renamed into place with the transaction's counters. Each chunk is written
    /// on a second thread while `produce` makes the next (`BulkChunkWriter`). Memory is
    /// two chunks, the sorters' batches and the filter's bits (ten bits a key), not the
    /// transaction.
    ///
    /// A crash before the commit frame leaves frames that no commit closes: open cuts
    /// them as a torn tail and removes the `.tmp` files (FORMAT.md §4.4). A crash after
    /// it leaves a committed transaction in the active segment, larger than the overlay:
    /// open seals the segment around it, building its index file through scratch
    /// sorters (`sealAroundLargeTransaction`), without holding it in memory.
    ///
    /// - Returns: the transaction's sequence number.
    /// - Throws: as `commit`, and `.invalidArgument` when a key is written twice (a
    ///   bulk transaction writes each key once). Nothing is visible or kept when any
    ///   chunk, the producer or a write fails before the commit frame; a failure after
    ///   it (sealing the segment) makes the store read-only, and the transaction is
    ///   there at the next open.
    @discardableResult
    public func commit(chunks produce: (inout WriteBatch, _ writeBlob: ([UInt8]) throws -> BlobRef) throws -> Bool) throws -> UInt64 {
        try commit(chunks: produce, checking: {})
    }

    /// ``commit(chunks:)`` with a last word from the producer: `check` runs on this
    /// thread once the last chunk is in, before the commit frame, and a check that
    /// throws stops the commit as a producer that throws does. It is not called when
    /// the commit stops before (a producer or a chunk's write that fails). A
    /// transaction of several chunks writes its index file on the commit's second
    /// thread meanwhile, so that a check that sorts and merges (an index build's
    /// uniqueness check) takes no time of its own.
    @discardableResult
    package func commit(chunks produce: (inout WriteBatch, _ writeBlob: ([UInt8]) throws -> BlobRef) throws -> Bool,
                        checking check: () throws -> Void) throws -> UInt64 {
        try writer.withLock { w in
            try checkWritable()
            try upgradeIfNeeded()
            func writeBlob(_ bytes: [UInt8]) throws -> BlobRef { try writeBlobLocked(bytes, &w) }
            var first = WriteBatch()
            let more = try produce(&first, writeBlob)
            if !more {
                try check()
                let sequence = try commitLocked(first, &w)
                Self.releaseElsewhere(consume first)
                return sequence
            }
            return try commitBulk(first: first, produce: produce, check: check, &w)
        }
    }

    /// Lets go of a committed batch on another thread when it is large: freeing
    /// thousands of records (their values, terms and term bytes, three allocations
    /// each) would otherwise happen under the writer lock while the second core idles.
    /// A small batch is freed here (a hand-over costs more).
    static func releaseElsewhere(_ batch: consuming WriteBatch) {
        guard batch.count >= halvedEncodeRecords else { return }
        let records = batch.pending
        _ = consume batch
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(records) {} }
    }

    private func commitBulk(first: consuming WriteBatch, produce: (inout WriteBatch, _ writeBlob: ([UInt8]) throws -> BlobRef) throws -> Bool,
                            check: () throws -> Void, _ w: inout WriterState) throws -> UInt64 {
        let sequence = try nextSequence(checking: first)
        // The transaction's index file is its segment's: nothing else may be in it.
        if w.segmentEnd > Int64(Format.segmentHeaderSize) { try roll(&w) }
        // The seal after the commit frame needs a segment id: make sure one is left
        // before anything is written (a roll's own check would come too late).
        var probe = state.withLock { $0.manifest }
        _ = try probe.allocateSegmentID()
        guard let file = w.segmentFile else { throw StrataError(.readOnly, "the store was opened read-only", path: path) }
        let segmentID = w.segmentID
        let start = w.segmentEnd
        let base = paths.index + "/" + StorePaths.number(segmentID)
        let entries = SpillSorter<IndexEntry>(path: base + ".entries.tmp", fileSystem: fileSystem, runLimit: options.bulkSortBatch,
                                              encode: IndexFileEncoder.append, decode: { try IndexFileEncoder.readEntry(&$0, segment: segmentID) })
        // Terms by count as entries are, and by bytes: 32 a term with its slot (2 MiB for
        // the default batch), so that a run of long values spills early; a merge of the
        // runs holds 32 KiB a run.
        let terms = PackedTermSorter(path: base + ".terms.tmp", fileSystem: fileSystem, budget: options.bulkSortBatch * 32,
                                     runLimit: options.bulkSortBatch)
        let indexPath = paths.indexFile(segmentID) + ".tmp"
        let writer = BulkChunkWriter(store: self, file: file, segmentID: segmentID, sequence: sequence, start: start,
                                     live: state.withLock { $0.index.counters }, entries: entries, terms: terms)
        var end = start
        do {
            var batch = consume first
            var more = true
            var submitted = 0
            func writeBlob(_ bytes: [UInt8]) throws -> BlobRef { try writeBlobLocked(bytes, &w) }
            while true {
                if submitted > 0 { _ = try nextSequence(checking: batch) }
                let chunk = try (consume batch).records(sequence: sequence)
                batch = WriteBatch()
                submitted += chunk.count
                // Written on the writer's thread while the next chunk is produced here.
                try writer.submit(chunk)
                if !more { break }
                more = try produce(&batch, writeBlob)
            }
            try writer.wait()
            end = writer.end
            let records = writer.records, frames = writer.frames, recordBytes = writer.recordBytes
            let live = writer.live, blobs = writer.blobs
            // Chunks that were all empty: no transaction (FORMAT.md §3.4: none has zero records).
            if records == 0 {
                try check()
                writer.entries.discard()
                writer.terms.discard()
                return state.withLock { $0.lastSequence }
            }
            var commit: [UInt8] = []
            Self.appendCommitFrame(sequence: sequence, records: records, frames: frames, to: &commit)
            // The footer records the sealed segment's length: the commit and seal frames to come included.
            let sealedLength = end + Int64(commit.count + Self.sealFrame(min: sequence, max: sequence).count)
            // The index file is written on the writer's thread while the check runs here.
            writer.run { [self, writer] in
                try writeBulkIndex(entries: &writer.entries, terms: &writer.terms, to: indexPath, segmentID: segmentID, sequence: sequence,
                                   recordBytes: recordBytes, segmentLength: sealedLength)
            }
            var checkFailure: (any Error)?
            do { try check() } catch { checkFailure = error }
            writer.finish()
            if let checkFailure { throw checkFailure }
            try writer.wait()
            // Whatever the durability mode, blobs reach the disk before a commit that
            // references them can (as in `commit`).
            if w.blobDirty && !blobs.isEmpty { try syncBlobs(&w) }
            try file.write(commit, at: end)
            end += Int64(commit.count)
            w.segmentEnd = end
            w.segmentDirty = true
            w.segmentMinSequence = sequence
            w.segmentMaxSequence = sequence
            counters.commits.add(1)
            counters.segmentBytesWritten.add(Int(end - start))
            // The seal fsyncs the segment and the blobs whatever the durability mode:
            // the transaction is durable when this returns.
            do {
                try roll(&w, bulk: BulkSeal(indexPath: indexPath, counters: live, recordBytes: recordBytes, sequence: sequence, blobs: blobs))
            } catch {
                // The transaction is committed but not visible: no further commit may
                // follow it in this process (open replays it).
                fail(error)
                throw error
            }
            return sequence
        } catch {
            // Nothing may be cleaned up under a chunk's write still under way.
            writer.finish()
            writer.entries.discard()
            writer.terms.discard()
            try? fileSystem.remove(indexPath)
            if w.segmentEnd == start {
                // Nothing of the transaction is committed: take its frames back, so the
                // next commit starts on a frame boundary (open would cut them anyway).
                do { try file.truncate(to: start) } catch { fail(error) }
            }
            throw error
        }
    }

    /// Writes the sorted entries and terms as the segment's index file at `path`
    /// (streamed, then fsynced). A key written twice stops the commit.
    private func writeBulkIndex(entries: inout SpillSorter<IndexEntry>, terms: inout PackedTermSorter, to path: String,
                                segmentID: UInt32, sequence: UInt64, recordBytes: Int64, segmentLength: Int64) throws {
        let storeID = state.withLock { $0.manifest.storeID }
        try IndexFileEncoder.stream(to: path, fileSystem: fileSystem, expectedEntries: entries.count) { encoder in
            var last: RecordKey?
            func once(_ key: RecordKey) throws {
                if let last, last == key {
                    throw StrataError(.invalidArgument, "key \(key) is written twice in one bulk transaction", path: self.path)
                }
                last = key
            }
            // Keys that rose through the transaction are one run: its bytes are the
            // blocks' own, copied over as they are.
            let copied = try entries.drainEncodedIfOneRun { bytes in try once(try encoder.addEncoded(bytes)) }
            if !copied {
                try entries.drain { entry in
                    try once(entry.key)
                    try encoder.add(entry)
                }
            }
            try terms.drain { try encoder.add($0) }
            return try encoder.finish(segmentID: segmentID, storeID: storeID, minSequence: sequence, maxSequence: sequence,
                                      recordBytes: recordBytes, segmentLength: segmentLength)
        }
    }
}
