import Foundation
import StrataLog
import Synchronization

/// A sorted fetch that scans a large entity uses both cores (`StoreOptions.parallelScanMinimum`):
/// the entity's serials are cut into a few chunks, and two threads — the caller's and a
/// second one — each claim the next chunk not yet taken until none is left, judging it
/// with their own compiled request into their own top-k; the caller's collector then
/// takes both threads' rows. Claiming, rather than a half each, bounds the wait on a
/// second thread that starts late or runs slower (a shared virtual machine's core):
/// the caller takes more chunks instead of waiting on a fixed half. (Two threads that
/// share one core lose on either plan.) An index's many candidates are cut in two (`parallelCandidateMinimum`).
/// A sorted fetch judges every candidate whatever it keeps, so the threads do the work
/// one thread would — 1.3 to 1.9 times as fast, not twice: both take the block
/// cache's and the store state's locks — and its answer is the same: each row keeps
/// its place among the candidates (a chunk's places follow the chunk before it,
/// whichever thread read either), which orders ties as a single walk would.
///
/// A record the compiled request cannot judge (an external binary it reads) is judged
/// as an object afterwards, on the caller's thread, in key order: managed objects
/// never leave it.
extension ObjectContext {
    /// The processors this process may run on, read once: `activeProcessorCount` reads
    /// the cgroup's files at every call (several system calls, too many for every fetch
    /// to ask).
    static let processors = ProcessInfo.processInfo.activeProcessorCount

    /// The most chunks a scan is cut into: enough that a thread running at half speed
    /// leaves the other little to wait for, few enough that finding each chunk's
    /// first record stays a small part of the scan.
    static let scanChunkLimit = 16

    /// How a scan of `tag` is cut — its chunks of keys, and the compiled request the
    /// second thread judges with (a request's field slots are scratch space: each
    /// thread has its own) — or nil when it runs on one thread. A chunk holds a
    /// quarter of `parallelScanMinimum`'s serials or more: an entity just past the
    /// minimum is cut in four.
    func parallelScanPlan(_ request: FetchRequest, tag: UInt16) -> (chunks: [Range<RecordKey>], compiled: [UInt16: CompiledFetch])? {
        guard Self.processors > 1 else { return nil }
        let next = store.nextSerial(tag: tag)
        let minimum = UInt64(max(1, store.options.parallelScanMinimum))
        // A predicate through relationships reads the context's registry: this thread only.
        guard next > minimum, next > 2, let compiled = compileFetch(request, tags: [tag]).fetches,
              !compiled.values.contains(where: \.readsRelationships) else { return nil }
        // Serials 1..<next, cut at `count - 1` increasing serials (count <= next - 1).
        let serials = next - 1
        let count = Int(min(UInt64(Self.scanChunkLimit), max(2, serials / max(1, minimum / 4)), serials))
        let range = StoreSchema.range(tag: tag)
        var chunks: [Range<RecordKey>] = []
        chunks.reserveCapacity(count)
        var start = range.lowerBound
        for i in 1..<count {
            let cut = StoreSchema.key(tag: tag, serial: 1 + serials * UInt64(i) / UInt64(count))
            chunks.append(start..<cut)
            start = cut
        }
        chunks.append(start..<range.upperBound)
        return (chunks, compiled)
    }

    /// Judges the records of `tag` on this thread and a second, each claiming the
    /// plan's chunks in turn, then hands their rows to `run`'s collector.
    func scanInParallel(_ request: FetchRequest, tag: UInt16, plan: (chunks: [Range<RecordKey>], compiled: [UInt16: CompiledFetch]), run: CompiledRun,
                        needed: Int?, keepObjects: Bool, judgeObject: (RecordKey, Int) throws -> Void) throws {
        let chunks = ScanChunks(plan.chunks, firstPosition: run.position)
        // This thread judges with the fetch's own compiled request (idle meanwhile).
        let here = ScanShare(request, records: store.records, source: .claimed(chunks), compiled: run.compiled,
                            capacity: needed, position: run.position, keepsRecords: keepObjects)
        let there = ScanShare(request, records: store.records, source: .claimed(chunks), compiled: plan.compiled,
                             capacity: needed, position: run.position, keepsRecords: keepObjects)
        try judgeBoth(here, there, run: run, judgeObject: judgeObject)
        run.position = chunks.endPosition
    }

    /// The compiled request a second thread judges an index's candidates with, or nil
    /// when they are judged on one thread (`StoreOptions.parallelCandidateMinimum`).
    func parallelCandidatesPlan(_ request: FetchRequest, tags: [UInt16], candidates: Int) -> [UInt16: CompiledFetch]? {
        guard candidates >= max(2, store.options.parallelCandidateMinimum), Self.processors > 1,
              let compiled = compileFetch(request, tags: tags).fetches,
              !compiled.values.contains(where: \.readsRelationships) else { return nil }
        return compiled
    }

    /// Judges the first half of an index's candidates (`keys`, at `positions` among
    /// all of them) here and the second on a second thread, then hands both halves'
    /// rows to `run`'s collector. Candidates judged as objects are the caller's.
    func judgeCandidatesInParallel(_ request: FetchRequest, keys: [LocatedKey], positions: [Int], compiled: [UInt16: CompiledFetch], run: CompiledRun,
                                   needed: Int?, keepObjects: Bool, judgeObject: (RecordKey, Int) throws -> Void) throws {
        let middle = keys.count / 2
        func half(_ part: Range<Int>, compiled: [UInt16: CompiledFetch]) -> ScanShare {
            ScanShare(request, records: store.records, source: .located(Array(keys[part]), positions: Array(positions[part])),
                     compiled: compiled, capacity: needed, position: 0, keepsRecords: keepObjects)
        }
        try judgeBoth(half(0..<middle, compiled: run.compiled), half(middle..<keys.count, compiled: compiled), run: run, judgeObject: judgeObject)
    }

    /// Runs `there` on a second thread and `here` on this one, then merges their rows into
    /// `run` and judges as objects what they could not judge on records.
    private func judgeBoth(_ here: ScanShare, _ there: ScanShare, run: CompiledRun, judgeObject: (RecordKey, Int) throws -> Void) throws {
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { there.scan() }
        here.scan()
        group.wait()
        if let failure = here.failure ?? there.failure { throw failure }
        for scanned in [here, there] {
            for row in scanned.run.collector.finish() where try run.collector.accepts(row.values, position: row.position) {
                run.collector.add(row)
            }
        }
        // In key order: with chunks claimed, one thread's list may hold a later chunk's
        // records before an earlier one's.
        for left in (here.asObjects + there.asObjects).sorted(by: { $0.position < $1.position }) {
            try judgeObject(left.key, left.position)
        }
    }
}

/// One thread's share of a parallel fetch — the chunks of a scan it claims, or half
/// an index's candidates — judged on the thread that calls `scan`. Only that thread
/// touches it until `scan` returns (the dispatch group orders the caller's
/// reads after it); it holds no managed object.
final class ScanShare: @unchecked Sendable {
    struct Left {
        var key: RecordKey
        var position: Int
    }

    /// What a share reads: the chunks of the entity's keys it claims (a scan), or
    /// index candidates with their places among all of them.
    enum Source {
        case claimed(ScanChunks)
        case located([LocatedKey], positions: [Int])
    }

    private let records: any RecordStore
    private let source: Source
    let run: CompiledRun
    /// The next record's place among the candidates.
    private(set) var position: Int
    private let keepsRecords: Bool
    /// Records the compiled request could not judge: judged as objects afterwards.
    private(set) var asObjects: [Left] = []
    private(set) var failure: (any Error)?

    /// A share of `request` judged with `compiled` (its own: a compiled request's field
    /// slots are scratch space) into a top-k of its own of `capacity` rows.
    init(_ request: FetchRequest, records: any RecordStore, source: Source, compiled: [UInt16: CompiledFetch], capacity: Int?,
         position: Int, keepsRecords: Bool) {
        self.records = records
        self.source = source
        self.run = CompiledRun(collector: FetchRowCollector(sortKeys: request.sortKeys, capacity: capacity), done: false, compiled: compiled)
        self.position = position
        self.keepsRecords = keepsRecords
    }

    func scan() {
        do {
            switch source {
            case .claimed(let chunks):
                // This thread's chunks are one walk to the block cache.
                var scanned = 0
                while let chunk = chunks.claim() {
                    position = chunks.firstPosition(of: chunk)
                    try records.visitRecordRuns(in: chunks.ranges[chunk], scanned: &scanned) { views in
                        for view in views {
                            try judge(view)
                            position += 1
                        }
                        return true
                    }
                }
            case .located(let keys, let positions):
                try records.visitRecords(located: keys) { i, view in
                    position = positions[i]
                    try judge(view)
                    return true
                }
            }
        } catch {
            failure = error
            // The other thread stops at its next claim: the fetch fails either way.
            if case .claimed(let chunks) = source { chunks.abandon() }
        }
    }

    /// Judges `view` as a fetch on one thread does; a record that must be judged as
    /// an object is left for the caller.
    private func judge(_ view: RecordView) throws {
        if try !run.judgeOnRecord(view, position: position, keepObjects: keepsRecords, offset: 0) {
            asObjects.append(Left(key: view.key, position: position))
        }
    }
}

/// A scan's chunks of keys, in key order, and the count of those claimed so far. Each
/// chunk is claimed once, by whichever thread asks first. Chunk `i`'s records take the
/// places from `firstPosition(of: i)` on: far past any count of the chunks before it,
/// so places follow key order whichever thread read which chunk.
final class ScanChunks: Sendable {
    let ranges: [Range<RecordKey>]
    private let base: Int
    private let claimed = Atomic<Int>(0)
    /// The places of one chunk: 2^40 records (a chunk is a sixteenth or more of an
    /// entity's serials; one that held more than 2^40 records would share places
    /// with the next).
    private static let positionShift = 40

    init(_ ranges: [Range<RecordKey>], firstPosition: Int) {
        self.ranges = ranges
        self.base = firstPosition
    }

    /// The next chunk not yet claimed, or nil when none is left.
    func claim() -> Int? {
        let chunk = claimed.wrappingAdd(1, ordering: .relaxed).oldValue
        return chunk < ranges.count ? chunk : nil
    }

    /// Leaves no chunk to claim (a thread failed; the fetch throws).
    func abandon() { claimed.store(ranges.count, ordering: .relaxed) }

    func firstPosition(of chunk: Int) -> Int { base + chunk << Self.positionShift }

    /// A place past every chunk's: where the next entity's places start.
    var endPosition: Int { firstPosition(of: ranges.count) }
}
