import Dispatch
import SystemPackage

extension LogStore {
    /// Commits a transaction: its records, then a commit frame, in one append. It is
    /// visible to readers once this returns, whole; with `.everyCommit` durability it
    /// also survives power loss.
    ///
    /// - Returns: the transaction's sequence number.
    /// - Throws: `.readOnly` after an earlier write failure, `.io` (the store then
    ///   refuses writes until reopened when the failure was an fsync), `.invalidArgument`
    ///   for a record larger than a frame can hold (put large values in blobs),
    ///   `.limitExceeded` when the store's sequence numbers are exhausted (only a
    ///   damaged store gets there: 2^64 − 1 transactions).
    @discardableResult
    public func commit(_ batch: WriteBatch) throws -> UInt64 {
        let pending = try commitPending(batch)
        try waitUntilDurable(pending)
        return pending.sequence
    }

    /// Appends a transaction and makes it visible, without waiting for it to become
    /// durable: ``waitUntilDurable(_:)`` or ``durable(_:)`` does, outside any lock the
    /// caller holds, so that commits arriving while an fsync runs share the next one
    /// (group commit). `commit(_:)` is this and the wait.
    ///
    /// Readers of this store see the transaction from here on; its caller should not
    /// report it done before the wait returns. A failed fsync makes the store read-only
    /// until reopened and fails every commit it was to cover. A failed commit is not
    /// known to be durable — an earlier fsync may have carried its bytes all the same —
    /// so after a crash it may or may not be there; what survives is still a prefix.
    ///
    /// - Throws: as ``commit(_:)``.
    package func commitPending(_ batch: WriteBatch) throws -> PendingCommit {
        if batch.isEmpty { return PendingCommit(durableSequence: lastSequence) }
        return try writer.withLock { w in
            try checkWritable()
            try upgradeIfNeeded()
            return try appendLocked(batch, &w)
        }
    }

    /// Blocks until an fsync covers `commit` (at once when it needs none).
    ///
    /// - Throws: `.io` when the fsync failed (the store is then read-only until reopened).
    package func waitUntilDurable(_ commit: PendingCommit) throws {
        guard let point = commit.point else { return }
        try groupCommit.waitUntilDurable(point)
        noteDurable(through: commit.sequence)
    }

    /// Suspends until an fsync covers `commit`, never blocking a thread.
    ///
    /// - Throws: `.io` when the fsync failed (the store is then read-only until reopened).
    package func durable(_ commit: PendingCommit) async throws {
        guard let point = commit.point else { return }
        try await groupCommit.durable(point)
        noteDurable(through: commit.sequence)
    }

    /// Every commit up to `sequence` is durable.
    func noteDurable(through sequence: UInt64) {
        state.withLock { $0.durableSequence = max($0.durableSequence, sequence) }
    }

    /// The sequence up to which every commit is known to be durable.
    package var durableSequence: UInt64 { state.withLock { $0.durableSequence } }

    /// The sequence the next transaction takes, after checking that `batch` references
    /// only blobs this store holds.
    func nextSequence(checking batch: WriteBatch) throws -> UInt64 {
        let (last, missing) = state.withLock { s -> (UInt64, BlobRef?) in
            for record in batch.pending where !record.blobs.isEmpty {
                if let bad = record.blobs.first(where: { s.blobFiles[$0.file] == nil || $0.offset > Format.maxBlobOffset || $0.length > Format.maxBlobLength }) {
                    return (0, bad)
                }
            }
            return (s.lastSequence, nil)
        }
        if let missing {
            throw StrataError(.invalidArgument, "a record references \(missing), which no blob file of this store holds", path: paths.blob(missing.file))
        }
        // A damaged manifest or segment can carry the largest sequence there is:
        // the store then refuses to commit, it does not wrap or trap.
        return try Checked.successor(of: last, "sequence", path: paths.manifest)
    }

    /// `commit` with the writer lock held: durable when it returns.
    func commitLocked(_ batch: WriteBatch, _ w: inout WriterState) throws -> UInt64 {
        let pending = try appendLocked(batch, &w)
        if pending.point != nil { try syncSegment(&w) }
        return pending.sequence
    }

    /// Appends and applies a transaction with the writer lock held; the fsync that
    /// makes it durable is owed when the result has a point.
    func appendLocked(_ batch: WriteBatch, _ w: inout WriterState) throws -> PendingCommit {
        if batch.isEmpty { return PendingCommit(durableSequence: lastSequence) }
        let sequence = try nextSequence(checking: batch)
        // The batch's records as they are, their sequence given to the encoder: setting
        // it in each record copied the batch's array (the caller still holds the batch),
        // three retains a record.
        let records = try batch.records(completedWith: sequence)
        let (bytes, locations) = try encodeTransaction(records, sequence: sequence, recordSequence: sequence, segmentID: w.segmentID,
                                                       startingAt: w.segmentEnd, inHalves: records.count >= Self.halvedEncodeRecords)
        // The versions these records replace, found before anything is written: a
        // damaged index file is repaired here, never after the append. The writer
        // lock keeps them current until the records are applied.
        let replaced = try previousVersions(of: records)
        // Whatever the durability mode, blob bytes reach the disk before a commit
        // that references them can: otherwise a power loss could keep the commit
        // and lose its blob, and what survives would not be a prefix.
        if w.blobDirty && records.contains(where: { !$0.blobs.isEmpty }) { try syncBlobs(&w) }
        let owesSync = try append(bytes, to: &w)
        let point = LogPoint(segment: w.segmentID, end: w.segmentEnd)
        if owesSync { groupCommit.appended(point) }
        state.withLock { s in
            if records.count >= 256 { s.index.overlay.reserve(records.count, terms: records.reduce(0) { $0 + $1.terms.count }) }
            var recordBytes: Int64 = 0
            records.withUnsafeBufferPointer { records in
                for i in records.indices {
                    let location = locations[i]
                    for blob in records[i].blobs { s.releasePendingBlob(blob) }
                    let entry = IndexEntry(key: records[i].key, sequence: sequence, isTombstone: records[i].isTombstone, location: location, blobs: records[i].blobs)
                    // A key twice in this transaction: its first version is in the overlay now.
                    s.index.apply(entry, terms: records[i].terms, replacing: s.index.overlay.entry(records[i].key) ?? replaced[i])
                    recordBytes += Int64(location.recordLength)
                }
            }
            s.recordBytesBySegment[w.segmentID, default: 0] += recordBytes
            s.lastSequence = sequence
            s.lastCommitEnd = point
        }
        w.segmentMinSequence = min(w.segmentMinSequence, sequence)
        w.segmentMaxSequence = max(w.segmentMaxSequence, sequence)
        counters.commits.add(1)
        let overlayFull = state.withLock { $0.index.overlay.count >= max(1, options.overlayEntryLimit) }
        if w.segmentEnd >= Int64(options.segmentSizeLimit) || overlayFull {
            do {
                try roll(&w)
            } catch StrataError.Code.limitExceeded {
                // The transaction is committed; only the roll could not happen. The
                // segment grows on until a segment's 4 GiB bound refuses commits.
                logger.error("segment ids are exhausted; the active segment keeps growing", metadata: ["path": "\(paths.manifest)"])
            }
        }
        return PendingCommit(sequence: sequence, point: owesSync ? point : nil)
    }

    /// The current version in the sealed index files of each record's key (nil when the
    /// overlay holds the key: the overlay's version is taken at apply time).
    func previousVersions(of records: [Record]) throws -> PreviousVersions {
        try readIndex { s in
            // Nothing sealed, nothing to find: a new store's first commits (and every
            // commit until the first roll) skip the probe of each key.
            guard !s.index.files.isEmpty else { return PreviousVersions() }
            var found = PreviousVersions()
            // A memo per file: a bulk chunk's thousands of keys take each fence once.
            var memos = IndexFile.LookupMemo.perFile(s.index.files.count)
            for i in records.indices where s.index.overlay.slot(records[i].key) == nil {
                if let entry = try StoreIndex.sealedEntry(records[i].key, in: s.index.files, memos: &memos) { found.entries[i] = entry }
            }
            return found
        }
    }

    /// The sealed versions a transaction's records replace, by record position; most
    /// records replace none (new objects), so only those found are kept: a list with a
    /// slot per record was paged in for nothing by every insert.
    struct PreviousVersions {
        var entries: [Int: IndexEntry] = [:]
        subscript(_ i: Int) -> IndexEntry? { entries.isEmpty ? nil : entries[i] }
    }

    /// Encodes records into block frames of about `options.blockSize` raw bytes each,
    /// then the commit frame (FORMAT.md §3.2–§3.4); returns the bytes and every
    /// record's location, in the records' order.
    /// `recordSequence`, when given, is written as every record's sequence in place of
    /// its own (a commit's records are numbered as they are written).
    /// `inHalves` encodes the records' two halves on two threads.
    func encodeTransaction(_ records: [Record], sequence: UInt64, recordSequence: UInt64? = nil, segmentID: UInt32, startingAt start: Int64,
                           inHalves: Bool = false) throws -> ([UInt8], [RecordLocation]) {
        var (out, locations, frames) = inHalves
            ? try encodeFramesInHalves(records, sequence: recordSequence, segmentID: segmentID, startingAt: start)
            : try encodeFrames(records, sequence: recordSequence, segmentID: segmentID, startingAt: start)
        Self.appendCommitFrame(sequence: sequence, records: records.count, frames: frames, to: &out)
        return (out, locations)
    }

    /// Appends a commit frame (FORMAT.md §3.4) for `records` records in `frames`
    /// records frames (into the transaction's buffer: a commit's every allocation counts).
    static func appendCommitFrame(sequence: UInt64, records: Int, frames: Int, to out: inout [UInt8]) {
        var commit = ByteWriter(capacity: 16)
        commit.u64(sequence)
        commit.u32(UInt32(truncatingIfNeeded: records))
        commit.u32(UInt32(truncatingIfNeeded: frames))
        FrameCodec.append(type: .commit, payload: commit.bytes, to: &out)
    }

    /// Encodes records into records frames (no commit frame) placed from `start`:
    /// their bytes, every record's location, and the number of frames. `sequence`,
    /// when given, is written as every record's sequence in place of its own.
    func encodeFrames(_ records: ArraySlice<Record>, sequence: UInt64? = nil, segmentID: UInt32, startingAt start: Int64) throws -> ([UInt8], [RecordLocation], Int) {
        try records.withUnsafeBufferPointer { records in
            try encodeFrames(records, sequence: sequence, segmentID: segmentID, startingAt: start)
        }
    }

    /// The number of records from which a commit encodes its frames on two threads.
    /// Encoding and compressing is a sizeable part of a large batch insert, and on one
    /// thread the second core idles; below a few blocks' worth the hand-over is not
    /// worth it.
    static let halvedEncodeRecords = 2_048

    /// ``encodeFrames(_:sequence:segmentID:startingAt:)`` with the second half of the
    /// records encoded on another thread: the same records in the same order, each
    /// half in blocks of its own (the first half's last block may be short), the
    /// second half's locations moved past the first half's bytes.
    func encodeFramesInHalves(_ records: [Record], sequence: UInt64?, segmentID: UInt32, startingAt start: Int64) throws -> ([UInt8], [RecordLocation], Int) {
        let middle = records.count / 2
        let upper = EncodedHalf()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            // Placed from 0 and moved below: where it lands is known once the first half is encoded.
            upper.result = Result { try self.encodeFrames(records[middle...], sequence: sequence, segmentID: segmentID, startingAt: 0) }
        }
        let lower = Result { try encodeFrames(records[..<middle], sequence: sequence, segmentID: segmentID, startingAt: start) }
        group.wait()
        var (out, locations, frames) = try lower.get()
        let second = try upper.result.get()
        let shift = start + Int64(out.count)
        guard shift + Int64(second.0.count) < Int64(UInt32.max) else {
            throw StrataError(.invalidArgument, "transaction too large for one segment", path: path)
        }
        out.append(contentsOf: second.0)
        locations.reserveCapacity(records.count)
        for var location in second.1 {
            location.frameOffset += UInt32(shift)
            locations.append(location)
        }
        return (out, locations, frames + second.2)
    }

    /// ``encodeFrames(_:sequence:segmentID:startingAt:)`` of a whole array.
    func encodeFrames(_ records: [Record], sequence: UInt64? = nil, segmentID: UInt32, startingAt start: Int64) throws -> ([UInt8], [RecordLocation], Int) {
        try encodeFrames(records[...], sequence: sequence, segmentID: segmentID, startingAt: start)
    }

    /// ``encodeFrames(_:sequence:segmentID:startingAt:)`` over the records in place:
    /// a record taken out of the array was retained and released three times.
    private func encodeFrames(_ records: UnsafeBufferPointer<Record>, sequence: UInt64?, segmentID: UInt32, startingAt start: Int64) throws -> ([UInt8], [RecordLocation], Int) {
        try packFrames(count: records.count, segmentID: segmentID, startingAt: start, compressor: options.compressRecords ? LZ4Compressor() : nil,
                       size: { try RecordCodec.checkedSize(of: records[$0], path: path) },
                       write: { i, block in RecordCodec.encode(records[i], sequence: sequence ?? records[i].sequence, into: &block) })
    }

    /// Packs `count` records into records frames (no commit frame) placed from `start`
    /// (FORMAT.md §3.3): a record starts a new block when it would take the block past
    /// `options.blockSize`. `size(i)` is record `i`'s encoded size (throwing for one a
    /// frame cannot hold), `write(i, &block)` appends its bytes. Returns the frames'
    /// bytes, every record's location, and the number of frames. Inlined into its two
    /// callers (a commit's encoding, compaction's output), so that their closures are
    /// too: called per record, they would weigh on every commit. `pause` is called
    /// after each frame (compaction gives up its core there: a large transaction's
    /// frames are milliseconds of compression).
    @inline(__always)
    func packFrames(count: Int, segmentID: UInt32, startingAt start: Int64, compressor: LZ4Compressor?,
                    size: (Int) throws -> Int, write: (Int, inout ByteWriter) -> Void,
                    pause: (() -> Void)? = nil) throws -> ([UInt8], [RecordLocation], Int) {
        var out: [UInt8] = []
        var locations: [RecordLocation] = []
        locations.reserveCapacity(count)
        var frames = 0
        var index = 0
        // A block must fit a frame whatever the option says, compressed or not.
        let blockSize = max(1, min(options.blockSize, Format.maxFramePayload / 2))
        var block = ByteWriter(capacity: min(blockSize, 1 << 20) + 256)
        var inBlock: [(offset: Int, length: Int)] = []
        while index < count {
            block.bytes.removeAll(keepingCapacity: true)
            block.u32(0)
            inBlock.removeAll(keepingCapacity: true)
            while index < count {
                let size = try size(index)
                if !inBlock.isEmpty && block.count + size > blockSize { break }
                let offset = block.count
                write(index, &block)
                inBlock.append((offset, block.count - offset))
                index += 1
            }
            block.patch(u32: UInt32(inBlock.count), at: 0)
            let frameOffset = start + Int64(out.count)
            let before = out.count
            FrameCodec.appendRecords(block.bytes, compressor: compressor, to: &out)
            let frameLength = out.count - before
            guard frameOffset + Int64(frameLength) < Int64(UInt32.max) else {
                throw StrataError(.invalidArgument, "transaction too large for one segment", path: path)
            }
            for (offset, length) in inBlock {
                locations.append(RecordLocation(segment: segmentID, frameOffset: UInt32(frameOffset), frameLength: UInt32(frameLength),
                                                recordOffset: UInt32(offset), recordLength: UInt32(length)))
            }
            frames += 1
            pause?()
        }
        return (out, locations, frames)
    }

    /// Appends to the active segment. Blobs the transaction references are fsynced
    /// first, so a durable commit never points at blob bytes a crash could lose. With
    /// `.periodic` durability the segment is synced here when the interval is up; with
    /// `.everyCommit` the fsync is owed (returns true) and made by group commit.
    private func append(_ bytes: [UInt8], to w: inout WriterState) throws -> Bool {
        guard let file = w.segmentFile else { throw StrataError(.readOnly, "the store was opened read-only", path: path) }
        let mustSync: Bool
        var owesSync = false
        switch options.durability {
        case .everyCommit: mustSync = false; owesSync = true
        case let .periodic(milliseconds): mustSync = ContinuousClock.now - w.lastSync >= .milliseconds(milliseconds)
        case .none: mustSync = false
        }
        if mustSync || owesSync { try syncBlobs(&w) }
        do {
            try file.write(bytes, at: w.segmentEnd)
        } catch {
            // Take the partial bytes back so the next commit starts on a frame boundary;
            // if even that fails, recovery will cut them at the next open.
            do { try file.truncate(to: w.segmentEnd) } catch { fail(error) }
            throw error
        }
        w.segmentEnd += Int64(bytes.count)
        w.segmentDirty = true
        counters.segmentBytesWritten.add(bytes.count)
        if mustSync { try syncSegment(&w) }
        return owesSync
    }

    func syncSegment(_ w: inout WriterState) throws {
        guard w.segmentDirty, let file = w.segmentFile else { return }
        // With no group-commit fsync of the same file running: one that began after
        // this one failed could succeed falsely and acknowledge commits it did not make
        // durable, before `fail` tells their waiters.
        let point = LogPoint(segment: w.segmentID, end: w.segmentEnd)
        // Waiters it covered are woken before leadership ends: the end would otherwise
        // start the syncer for them, and an fsync of nothing new.
        try groupCommit.exclusive {
            try syncOrFail(file)
            groupCommit.synced(through: point)
        }
        w.segmentDirty = false
        w.lastSync = .now
    }

    func syncBlobs(_ w: inout WriterState) throws {
        guard w.blobDirty, let file = w.blobFile else { return }
        try syncOrFail(file)
        w.blobDirty = false
    }

    /// An fsync that, when it fails, makes the store read-only (DESIGN.md: a retried
    /// fsync can falsely succeed after the kernel dropped the dirty pages).
    private func syncOrFail(_ file: any StorageFile) throws {
        do {
            try file.sync()
        } catch {
            fail(error)
            throw error
        }
        counters.syncs.add(1)
    }

    /// Makes every commit appended so far durable, whatever the durability mode,
    /// without holding the writer lock through the fsync (group commit's, shared with
    /// the commits waiting for one, and run by its syncer, never by the caller: the
    /// compaction thread that asks runs at a lower priority); returns the last
    /// sequence it covers.
    func syncAppended() throws -> UInt64 {
        let (point, sequence) = try writer.withLock { w in
            try checkWritable()
            return (LogPoint(segment: w.segmentID, end: w.segmentEnd), state.withLock { $0.lastSequence })
        }
        try groupCommit.waitUntilDurable(point, leading: false)
        return sequence
    }

    /// Makes the commits this store shows durable — up to `sequence` at least, all of
    /// them when nil — whatever the durability mode, and returns a sequence through
    /// which every commit is durable (`sequence` or more). Commits are visible before
    /// their fsync returns (group commit); what is handed on as done — history's
    /// transactions and tokens — must not be, or a crash could lose a transaction whose
    /// sequence a later commit then takes, and a token naming it would skip that one.
    ///
    /// Commits known durable return at once. Otherwise a store that commits waits for
    /// group commit's fsync (usually under way already for the committers), without
    /// the writer lock, so a long chunked commit does not hold it up; a snapshot asks
    /// its store; a store opened read-only fsyncs the active segment as far as it read
    /// it, which makes another process's appends durable too.
    ///
    /// - Throws: `.io` when an fsync failed (a store that commits is then read-only
    ///   until reopened, and only commits already durable are vouched for), `.closed`.
    package func syncVisible(through sequence: UInt64? = nil) throws -> UInt64 {
        let (known, last, point, closed) = state.withLock { ($0.durableSequence, $0.lastSequence, $0.lastCommitEnd, $0.isClosed) }
        let target = min(sequence ?? last, last)
        if target <= known { return max(known, target) }
        if closed { throw StrataError(.closed, "the store is closed", path: path) }
        if let root = snapshotRoot {
            let durable = try root.syncVisible(through: target)
            noteDurable(through: min(durable, last))
            return min(durable, last)
        }
        if groupCommit.hasSyncerThread {
            try groupCommit.waitUntilDurable(point)
            noteDurable(through: last)
            return last
        }
        // The writer lock is a reader's refresh lock: what the segment holds up to the
        // end read stays what this store shows while it syncs.
        return try writer.withLock { w in
            let (file, last) = state.withLock { ($0.segmentFiles[w.segmentID], $0.lastSequence) }
            do {
                try file?.sync()
            } catch let error as StrataError where error.errno == Errno.readOnlyFileSystem.rawValue || error.errno == Errno.invalidArgument.rawValue {
                // A file system mounted read-only, or one that cannot sync (squashfs):
                // nobody writes there, so nothing waits to become durable.
            }
            noteDurable(through: last)
            return last
        }
    }

    /// Makes every commit so far durable (for `.periodic` and `.none` durability).
    public func sync() throws {
        try writer.withLock { w in
            try checkWritable()
            try syncBlobs(&w)
            try syncSegment(&w)
        }
    }

    /// Appends a blob to the blob area and returns its reference. Put the reference
    /// in a record's `blobs` to keep it; a blob no committed record references is
    /// garbage that compaction reclaims.
    ///
    /// - Throws: `.io` on a write failure, `.readOnly`.
    public func writeBlob(_ bytes: [UInt8]) throws -> BlobRef {
        try writer.withLock { w in
            try checkWritable()
            try upgradeIfNeeded()
            return try writeBlobLocked(bytes, &w)
        }
    }

    /// `writeBlob` with the writer lock held.
    func writeBlobLocked(_ bytes: [UInt8], _ w: inout WriterState) throws -> BlobRef {
        guard let file = w.blobFile else { throw StrataError(.readOnly, "the store was opened read-only", path: path) }
        var stored = bytes
        var flags: UInt32 = 0
        if options.compressBlobs, bytes.count >= 256, let packed = bytes.withUnsafeBytes({ LZ4.compress($0) }) {
            stored = packed
            flags |= BlobFlags.lz4
        }
        let checksum = CRC32C.checksum(stored)
        let header = BlobEntryHeader(flags: flags, storedLength: UInt64(stored.count), rawLength: UInt64(bytes.count), dataChecksum: checksum)
        let offset = w.blobEnd
        var entry = header.encoded()
        entry.append(contentsOf: stored)
        do {
            try file.write(entry, at: offset)
        } catch {
            do { try file.truncate(to: offset) } catch { fail(error) }
            throw error
        }
        w.blobEnd += Int64(entry.count)
        w.blobDirty = true
        counters.blobBytesWritten.add(entry.count)
        counters.blobsWritten.add(1)
        let ref = BlobRef(file: w.blobID, offset: UInt64(offset), length: UInt64(stored.count), checksum: checksum)
        state.withLock { s in
            s.pendingBlobs[ref, default: 0] += 1
            s.pendingBlobFiles[ref.file, default: 0] += 1
        }
        if w.blobEnd >= Int64(options.blobFileSizeLimit) {
            do {
                try rollBlobFile(&w)
            } catch StrataError.Code.limitExceeded {
                logger.error("blob file ids are exhausted; the active blob file keeps growing", metadata: ["path": "\(paths.manifest)"])
            }
        }
        return ref
    }

    /// Replaces the caller's metadata (kept in the manifest) durably.
    ///
    /// - Throws: `.invalidArgument` for a key longer than 1,024 UTF-8 bytes or a value
    ///   larger than 16 MiB (the manifest is rewritten whole on every change).
    public func setMetadata(_ metadata: [String: [UInt8]]) throws {
        for (key, value) in metadata where key.utf8.count > 1024 || value.count > 16 << 20 {
            throw StrataError(.invalidArgument, "metadata key '\(key.prefix(40))…' (\(key.utf8.count) bytes) or its value (\(value.count) bytes) is too large", path: paths.manifest)
        }
        try writer.withLock { _ in
            try checkWritable()
            try upgradeIfNeeded()
            var manifest = state.withLock { $0.manifest }
            let engine = manifest.metadata.filter { Manifest.engineKeys.contains($0.key) }
            manifest.metadata = metadata
            // The engine's own entries are not the caller's to replace (FORMAT.md §6.3).
            for key in Manifest.engineKeys { manifest.metadata[key] = engine[key] }
            try writeManifest(manifest)
        }
    }

    /// Writes a new manifest and installs it in memory, with `install`'s changes to the
    /// state in the same step: a snapshot taken at any moment sees a manifest and the
    /// files and index it names, never a new manifest over the old files (a past
    /// snapshot would look for a segment not open yet). Called with the writer lock held.
    func writeManifest(_ proposed: Manifest, syncingDirectory: Bool = true, installing install: (inout State) -> Void = { _ in }) throws {
        var manifest = proposed
        // A damaged manifest can hold the largest generation: refuse, never wrap or trap.
        manifest.generation = try Checked.successor(of: manifest.generation, "manifest generation", path: paths.manifest)
        do {
            try ManifestWriter(fileSystem: fileSystem, paths: paths).write(manifest, syncingDirectory: syncingDirectory)
        } catch {
            fail(error)
            throw error
        }
        state.withLock { s in
            s.manifest = manifest
            install(&s)
        }
    }

    /// Makes everything durable, releases the write lock and closes files. Further
    /// calls throw `.closed`.
    public func close() throws {
        let alreadyClosed = state.withLock { $0.isClosed }
        if alreadyClosed { return }
        if isSnapshot { return release() }
        // A compaction under way stops at its next frame; its outputs not yet swapped in
        // are left to the next open (`CompactionOutput.abandon()`). A step past its swap
        // first fsyncs the directory and removes the group's files: close waits for
        // that, which must be done before the lock goes below and another process may
        // open the store.
        stopCompaction()
        compactionRunning.withLock { _ in }
        // Its snapshots read through the files closed below: they end first (and once
        // more after the store is marked closed, for one taken meanwhile).
        releaseSnapshots()
        var firstError: (any Error)?
        writer.withLock { w in
            if !options.readOnly && state.withLock({ $0.failure == nil }) {
                do {
                    if shouldSealAtClose(w) {
                        try roll(&w)
                    } else {
                        try syncBlobs(&w)
                        try syncSegment(&w)
                    }
                } catch { firstError = error }
            }
            w.segmentFile = nil
            w.blobFile = nil
        }
        // A leader's fsync in flight finishes before the files close under it.
        groupCommit.close()
        let files = state.withLock { s -> [any StorageFile] in
            s.isClosed = true
            // The index is most of a store's memory: a closed store that something still
            // references (a context, a CLI variable) must not keep it.
            let indexFiles = s.index.files.map(\.file)
            defer { s.segmentFiles = [:]; s.blobFiles = [:]; s.index = StoreIndex() }
            // Foreign blob files belong to the store this one stages for: not ours to close.
            let own = s.blobFiles.filter { !s.foreignBlobFiles.contains($0.key) }
            return Array(s.segmentFiles.values) + Array(own.values) + indexFiles
        }
        releaseSnapshots()
        for file in files { try? file.close() }
        // A cut under way (of a file the snapshots above let go of, say) ends after its
        // piece; files waiting, and any a reader in flight hands over later, are closed whole.
        reclaimer.stop()
        lockHandle?.unlock()
        if let firstError { throw firstError }
    }
}

extension LogStore {
    /// Whether `close` seals the active segment: this session committed, and its
    /// overlay is as large as ``LogStoreOptions/sealAtCloseMinimumKeys``.
    func shouldSealAtClose(_ w: WriterState) -> Bool {
        guard let minimum = options.sealAtCloseMinimumKeys, minimum > 0,
              w.segmentFile != nil, w.segmentEnd > Int64(Format.segmentHeaderSize) else { return false }
        let (keys, last) = state.withLock { ($0.index.overlay.count, $0.lastSequence) }
        return last > openedAtSequence && keys >= minimum
    }
}

extension LogStore.State {
    /// A commit referenced this blob: it is now live (or garbage) by the index's account.
    mutating func releasePendingBlob(_ blob: BlobRef) {
        guard let count = pendingBlobs[blob] else { return }
        if count <= 1 { pendingBlobs[blob] = nil } else { pendingBlobs[blob] = count - 1 }
        if let files = pendingBlobFiles[blob.file] {
            pendingBlobFiles[blob.file] = files <= 1 ? nil : files - 1
        }
    }
}

/// The second half of a commit's frames, written by the thread that encoded it and
/// read by the committing thread after the dispatch group's wait (which orders the
/// two): only one thread touches it at a time.
private final class EncodedHalf: @unchecked Sendable {
    /// Replaced by the encoding thread before the group's wait returns.
    var result: Result<([UInt8], [RecordLocation], Int), any Error> = .failure(StrataError(.closed, "the second half of a commit was not encoded"))
}
