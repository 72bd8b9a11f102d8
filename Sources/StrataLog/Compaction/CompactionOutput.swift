/// The segments (and at most one blob file) a compaction writes. They stay out of the
/// manifest until the swap, so a crash before it leaves leftovers that open removes.
final class CompactionOutput {
    struct Written {
        var id: UInt32
        var file: any StorageFile
        var minSequence: UInt64
        var maxSequence: UInt64
        var recordBytes: Int64
        /// `recordBytes` less the versions kept for a retention (FORMAT.md §8): what
        /// the segment's live-bytes counter starts from.
        var currentBytes: Int64
        /// The greatest sequence of the versions that superseded those kept.
        var keptUntil: UInt64
        var index: IndexFile
    }

    let store: LogStore
    private(set) var finished: [Written] = []
    /// Every segment this compaction wrote, swapped in or not yet.
    private(set) var segmentIDs: Set<UInt32> = []
    private var current: (id: UInt32, file: any StorageFile, end: Int64, min: UInt64, max: UInt64, bytes: Int64, currentBytes: Int64, keptUntil: UInt64)?
    /// The index of the segment being written, fed as transactions are appended.
    private var builder = IndexFileBuilder()
    private(set) var blob: (id: UInt32, file: any StorageFile, end: Int64)?

    /// Compresses every block this compaction writes (nil: blocks are stored raw).
    private let compressor: LZ4Compressor?
    /// The compaction's yields of the core, between pieces of its work.
    let cores = CoreYield()
    /// An output's index file is handed over (and the core given up) this many bytes
    /// at a time: encoding a large one in a single stretch would hold the core long
    /// enough to delay a commit's wake-up.
    static let indexDrainBytes = 64 << 10
    /// Bytes written to the current output (and blob file) since its last fsync.
    private var unsyncedSegmentBytes = 0
    private var unsyncedBlobBytes = 0

    init(store: LogStore) {
        self.store = store
        compressor = store.options.compressRecords ? LZ4Compressor() : nil
    }

    /// Writes `file`'s pages out (and waits for them) once `compactionBytesPerSync` bytes
    /// were written to it since the last time, `end` being where the bytes just written
    /// end: otherwise a compaction's tens of MiB of dirty pages are flushed by whichever
    /// fsync comes next — a durable commit's, which then waits for all of them. Data
    /// only, no fsync: an fsync also commits the file system's journal, which a commit's
    /// fsync arriving meanwhile queues behind. The output is made durable by one
    /// `sync()` when it is sealed.
    private func paced(_ count: Int, file: any StorageFile, end: Int64, unsynced: inout Int) throws {
        guard let limit = store.options.compactionBytesPerSync else { return }
        unsynced += count
        guard unsynced >= limit else { return }
        try file.writeBack((end - Int64(unsynced))..<end)
        unsynced = 0
    }

    /// Appends one transaction's surviving records with their original sequence, so
    /// ordering against newer versions elsewhere is unchanged: their bytes packed into
    /// blocks as a commit packs them (FORMAT.md §3.3), each block compressed anew.
    /// `keptUntil` is the greatest sequence of the versions that superseded those kept
    /// for a retention.
    func append(_ kept: KeptRecords, sequence: UInt64, keptUntil: UInt64 = 0) throws {
        guard !kept.isEmpty else { return }
        cores.yieldIfDue()
        // Sealed before a piece would take the output past the overlay limit, not after:
        // the builder then holds no more entries than the limit (give or take the last
        // frame of a piece), and its memory, kept from one output to the next, is the
        // limit's, not the next power of two's.
        if current != nil, builder.count > 0, builder.count + kept.count > max(1, store.options.overlayEntryLimit) { try sealCurrent() }
        if current == nil { try startSegment() }
        guard var segment = current else { return }
        // The kept bytes packed as a commit packs records; the index reads each one's
        // blobs and terms from them.
        let (packed, frames) = try kept.bytes.withUnsafeBytes { bytes in
            try kept.records.withUnsafeBufferPointer { records in
                let (out, locations, frames) = try store.packFrames(count: records.count, segmentID: segment.id, startingAt: segment.end, compressor: compressor, size: { i in
                    guard records[i].length + 4 <= Format.maxFramePayload else {
                        throw StrataError(.invalidArgument, "record \(records[i].header.key) is \(records[i].length) bytes, more than a frame holds", path: segment.file.path)
                    }
                    return records[i].length
                }, write: { i, block in
                    block.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[records[i].start..<records[i].start + records[i].length]))
                }, pause: cores.yieldIfDue)
                for (kept, location) in zip(records, locations) {
                    let record = UnsafeRawBufferPointer(rebasing: bytes[kept.start..<kept.start + kept.length])
                    segment.bytes += Int64(kept.length)
                    if !kept.retained { segment.currentBytes += Int64(kept.length) }
                    builder.add(IndexEntry(key: kept.header.key, sequence: sequence, isTombstone: kept.header.isTombstone, location: location,
                                           blobs: RecordCodec.blobs(of: record, header: kept.header)),
                                record: record, header: kept.header)
                }
                return (out, frames)
            }
        }
        var out = packed
        LogStore.appendCommitFrame(sequence: sequence, records: kept.count, frames: frames, to: &out)
        try segment.file.write(out, at: segment.end)
        try paced(out.count, file: segment.file, end: segment.end + Int64(out.count), unsynced: &unsyncedSegmentBytes)
        segment.end += Int64(out.count)
        segment.min = min(segment.min, sequence)
        segment.max = max(segment.max, sequence)
        segment.keptUntil = max(segment.keptUntil, keptUntil)
        current = segment
        store.counters.segmentBytesWritten.add(out.count)
        // Sealed at the live store's overlay limit too: the index of the segment being
        // written is built in memory, so a segment of a million small records would
        // hold a few hundred MiB of it (a 64 MiB segment of 45-byte records).
        if segment.end >= Int64(store.options.segmentSizeLimit) || builder.count >= max(1, store.options.overlayEntryLimit) {
            try sealCurrent()
        }
    }

    /// Copies a blob's stored bytes (already compressed or not) into this compaction's
    /// blob file, unchanged, and returns the new reference.
    func move(_ ref: BlobRef, from source: any StorageFile) throws -> BlobRef {
        if blob == nil {
            let id = try store.allocateFileID(blob: true)
            let file = try LogStore.createFile(store.paths.blob(id), magic: Format.blobMagic, id: id, storeID: store.storeID, fileSystem: store.fileSystem)
            blob = (id, file, Int64(Format.blobHeaderSize))
        }
        guard var target = blob else { return ref }
        // The reference's length is checked against the file before a buffer of that
        // size is allocated: it came from a record, which came from a file.
        guard ref.length <= Format.maxBlobLength, ref.offset <= Format.maxBlobOffset,
              Int64(ref.offset) + Int64(Format.blobEntryHeaderSize) + Int64(ref.length) <= (try source.size()) else {
            throw StrataError(.corrupt, "blob reference runs past the end of its file while compacting (\(ref.length) bytes at offset \(ref.offset))",
                              path: source.path, offset: Int64(exactly: ref.offset))
        }
        let entry = try source.readExactly(Format.blobEntryHeaderSize + Int(ref.length), at: Int64(ref.offset))
        guard BlobEntryHeader.decode(entry[0..<Format.blobEntryHeaderSize]) != nil,
              CRC32C.checksum(entry[Format.blobEntryHeaderSize...]) == ref.checksum else {
            throw StrataError(.corrupt, "blob does not match its reference while compacting", path: source.path, offset: Int64(ref.offset))
        }
        try target.file.write(entry, at: target.end)
        try paced(entry.count, file: target.file, end: target.end + Int64(entry.count), unsynced: &unsyncedBlobBytes)
        let moved = BlobRef(file: target.id, offset: UInt64(target.end), length: ref.length, checksum: ref.checksum)
        target.end += Int64(entry.count)
        blob = target
        store.counters.blobBytesWritten.add(entry.count)
        return moved
    }

    private func startSegment() throws {
        unsyncedSegmentBytes = 0
        let id = try store.allocateFileID(blob: false)
        let file = try LogStore.createFile(store.paths.segment(id), magic: Format.segmentMagic, id: id, storeID: store.storeID, fileSystem: store.fileSystem)
        current = (id, file, Int64(Format.segmentHeaderSize), .max, 0, 0, 0, 0)
        segmentIDs.insert(id)
    }

    /// Seals the segment being written: seal frame, fsync, index file (FORMAT.md §8).
    func sealCurrent() throws {
        guard let segment = current else { return }
        current = nil
        var seal = ByteWriter(capacity: 16)
        seal.u64(segment.min == .max ? 0 : segment.min)
        seal.u64(segment.max)
        var frame: [UInt8] = []
        FrameCodec.append(type: .seal, payload: seal.bytes, to: &frame)
        try segment.file.write(frame, at: segment.end)
        try segment.file.sync()
        let minSequence = segment.min == .max ? 0 : segment.min
        // Streamed as it is encoded: the output's whole index file is never held beside
        // the builder.
        let cores = self.cores
        try LogStore.writeIndexFile(segmentID: segment.id, paths: store.paths, fileSystem: store.fileSystem, bytesPerSync: store.options.compactionBytesPerSync) { sink in
            try builder.encoded(segmentID: segment.id, storeID: store.storeID, minSequence: minSequence, maxSequence: segment.max,
                                recordBytes: segment.bytes, segmentLength: segment.end + Int64(frame.count),
                                drainAt: Self.indexDrainBytes, sink: { bytes in cores.yieldIfDue(); try sink(bytes) }, pause: cores.yieldIfDue)
        }
        builder.removeAll(keepingCapacity: true)
        let index = try LogStore.openIndexFile(segment.id, paths: store.paths, storeID: store.storeID, fileSystem: store.fileSystem, cache: store.blockCache)
        finished.append(Written(id: segment.id, file: segment.file, minSequence: minSequence, maxSequence: segment.max, recordBytes: segment.bytes,
                                currentBytes: segment.currentBytes, keptUntil: segment.keptUntil, index: index))
    }

    /// Makes everything written durable before the manifest may name it.
    func finish() throws {
        try sealCurrent()
        if let blob { try blob.file.sync() }
        try store.fileSystem.syncDirectory(store.paths.segments)
        try store.fileSystem.syncDirectory(store.paths.blobs)
    }

    /// Removes what a compaction that stopped wrote and no manifest names: the store
    /// is left with the files it had (open would remove them too, but only at the
    /// next open for writing). What a swap put in the manifest stays.
    ///
    /// Only while the store is sound and open, under the writer lock: after a failure
    /// the manifest on disk may be newer than the one in memory (a rename that went
    /// through before an fsync failed), and a close that began waits for the compaction
    /// to stop, which it should do at once. Open settles them then.
    func abandon() {
        current = nil
        finished = []
        store.writer.withLock { _ in
            guard !store.compactionStopped.load(ordering: .relaxed) else { return }
            let listed = store.state.withLock { s -> (segments: Set<UInt32>, blobs: Set<UInt32>)? in
                guard !s.isClosed, s.failure == nil else { return nil }
                return (Set(s.manifest.segments.map(\.id)), Set(s.manifest.blobFiles.map(\.id)))
            }
            guard let listed else { return }
            for id in segmentIDs.subtracting(listed.segments) {
                try? store.fileSystem.remove(store.paths.segment(id))
                try? store.fileSystem.remove(store.paths.indexFile(id))
            }
            if let blob, !listed.blobs.contains(blob.id) { try? store.fileSystem.remove(store.paths.blob(blob.id)) }
        }
    }

    /// Takes the finished segments for a swap; later groups start new ones.
    func takeFinished() -> [Written] {
        defer { finished = [] }
        return finished
    }
}
