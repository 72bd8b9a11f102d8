import Foundation

/// The half of a chunked commit (`LogStore.commit(chunks:)`) that follows a chunk's
/// production: the versions its records replace looked up, its records encoded into
/// frames and appended to the segment, their index entries and terms handed to the
/// sorters, the counters moved; after the last chunk, the transaction's index file
/// (`run`). It runs on a second thread one chunk behind the committing one, so that
/// producing the next chunk (a batch insert checks and encodes its objects there)
/// overlaps writing this one: both halves are of the same order, so a batch insert
/// keeps two cores busy instead of one.
///
/// One chunk at a time is in its hands, so memory holds one chunk more than a single
/// thread would. The committing thread reads the state below (the terms sorter aside,
/// below) only after `wait()`, and hands the next chunk over only then: the dispatch
/// group orders each chunk's writes before the reads that follow them. Chunks are written in the order they are
/// submitted, each at the segment's end, so the segment's bytes are the same as one
/// thread's.
///
/// A chunk's index terms are packed into the terms sorter's buffer as they are
/// (`PackedTermSorter`): no term becomes an object of its own, and the sort runs
/// when the buffer spills or the commit drains it. The terms need nothing the write
/// finds out, so either thread may pack them, and the one with time to spare does:
/// the writing thread when it is idle as the chunk is handed over (the producer is
/// the longer half, as in an index build, which reads and rebuilds every record),
/// the committing thread while the writing thread still writes the chunk before (the
/// write is the longer half, as in a batch insert). One thread at a time packs: a
/// chunk packed on the writing thread is written before the committing thread packs
/// the next.
///
/// The state is only ever touched by one thread at a time, in the hand-over order
/// above, so its exclusivity is not checked at run time (the checks would be several
/// calls an object on the writing thread).
final class BulkChunkWriter: @unchecked Sendable {
    private let store: LogStore
    private let file: any StorageFile
    let segmentID: UInt32
    let sequence: UInt64
    /// Where the next frame goes: the end of the frames written so far.
    @exclusivity(unchecked) private(set) var end: Int64
    /// The store's counters with the chunks written so far applied.
    @exclusivity(unchecked) private(set) var live: IndexCounters
    /// The blobs the written records reference.
    @exclusivity(unchecked) private(set) var blobs: [BlobRef] = []
    @exclusivity(unchecked) private(set) var records = 0
    @exclusivity(unchecked) private(set) var frames = 0
    @exclusivity(unchecked) private(set) var recordBytes: Int64 = 0
    @exclusivity(unchecked) var entries: SpillSorter<IndexEntry>
    /// Packed by one thread at a time (`submit`), drained with `entries` into the
    /// index file on the writing thread (`run`).
    @exclusivity(unchecked) var terms: PackedTermSorter
    /// Whether the chunk handed over last packs its terms on the writing thread.
    @exclusivity(unchecked) private var writerPacks = false
    /// Chunks whose terms the writing thread packed (tests ask).
    @exclusivity(unchecked) private(set) var chunksPackedByWriter = 0
    /// The chunk handed over, until the writing thread takes it.
    @exclusivity(unchecked) private var handed: [Record] = []
    /// The chunk written last, until the committing thread frees it.
    @exclusivity(unchecked) private var written: [Record] = []
    /// The first failure on the writing thread (a chunk's write or its terms, or the
    /// work handed to `run`); the chunks after it are not written.
    private var failure: (any Error)?
    private let queue = DispatchQueue(label: "strata.bulk-commit")
    private let group = DispatchGroup()

    init(store: LogStore, file: any StorageFile, segmentID: UInt32, sequence: UInt64, start: Int64, live: IndexCounters,
         entries: SpillSorter<IndexEntry>, terms: PackedTermSorter) {
        self.store = store
        self.file = file
        self.segmentID = segmentID
        self.sequence = sequence
        self.end = start
        self.live = live
        self.entries = entries
        self.terms = terms
    }

    /// Hands `chunk` over once the chunk before it is written.
    /// - Throws: what writing an earlier chunk (or packing its terms) threw, this one
    ///   then not taken; what packing this chunk's terms here threw.
    func submit(_ chunk: [Record]) throws {
        let writerIdle = group.wait(timeout: .now()) == .success
        if !writerIdle {
            // The terms are the writing thread's until the chunk that packs them is
            // done. Found busy, the writing thread is the longer half: this thread
            // packs, after waiting once, and goes on packing while it finds it busy.
            if writerPacks { try wait() }
            try pack(chunk)
        }
        try wait()
        // The chunk written last is freed here, where its records were made: freed on
        // the writing thread, its many small arrays would go back to the committing
        // thread's malloc arena under that arena's lock, and the writing thread (the
        // longer half of a context's save) would wait on that lock.
        written = []
        handed = chunk
        writerPacks = writerIdle
        // The closure takes the chunk from `handed` rather than capturing it: a
        // captured chunk lives until dispatch releases the closure, after the group is
        // left, and whichever thread let go last would free it.
        queue.async(group: group) { [self] in
            let chunk = handed
            handed = []
            do {
                try write(chunk)
                if writerIdle {
                    try pack(chunk)
                    chunksPackedByWriter += 1
                }
            } catch {
                failure = error
            }
            written = chunk
        }
    }

    /// Runs `work` on the writing thread once the chunks handed over are written,
    /// unless one of them failed: the transaction's index file, written while the
    /// committing thread runs the producer's check (`LogStore.commit(chunks:checking:)`).
    /// `wait()` throws what it throws.
    func run(_ work: @escaping @Sendable () throws -> Void) {
        queue.async(group: group) { [self] in
            guard failure == nil else { return }
            do { try work() } catch { failure = error }
        }
    }

    private func pack(_ chunk: [Record]) throws {
        for r in chunk {
            for t in r.terms { try terms.add(index: t.index, value: t.value, key: r.key, sequence: sequence) }
        }
    }

    /// Waits until every chunk handed over is written (and the work handed to `run`
    /// is done).
    /// - Throws: the first failure on the writing thread.
    func wait() throws {
        group.wait()
        if let failure { throw failure }
    }

    /// Waits without throwing: before the commit cleans up after a failure, which
    /// must not race a write still under way.
    func finish() {
        group.wait()
    }

    private func write(_ chunk: [Record]) throws {
        // The versions these records replace, looked up before the chunk is written
        // (a damaged index file is repaired here, as `commit` does). The overlay is
        // empty: the transaction has a segment of its own.
        let replaced = try store.previousVersions(of: chunk)
        let (bytes, locations, frameCount) = try store.encodeFrames(chunk, segmentID: segmentID, startingAt: end)
        try file.write(bytes, at: end)
        end += Int64(bytes.count)
        for i in chunk.indices {
            let r = chunk[i]
            let entry = IndexEntry(key: r.key, sequence: sequence, isTombstone: r.isTombstone, location: locations[i], blobs: r.blobs)
            if let previous = replaced[i] { live.remove(previous) }
            live.add(entry)
            recordBytes += entry.recordBytes
            blobs.append(contentsOf: r.blobs)
            try entries.add(entry)
        }
        records += chunk.count
        frames += frameCount
        guard records <= Int(UInt32.max), frames <= Int(UInt32.max) else {
            throw StrataError(.invalidArgument, "transaction of more than \(UInt32.max) records or frames", path: store.path)
        }
    }
}
