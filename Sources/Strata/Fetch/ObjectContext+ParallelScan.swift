import Foundation
import StrataLog

/// A sorted fetch that scans a large entity uses both cores (`StoreOptions.parallelScanMinimum`):
/// the keys are cut in two at the middle of the entity's serials, each half is read and
/// judged on its own thread with its own compiled request and top-k, and the caller's
/// collector takes both halves' rows. An index's many candidates are cut in two the
/// same way (`parallelCandidateMinimum`). A sorted fetch judges every candidate whatever
/// it keeps, so the halves do the work one thread would — 1.3 to 1.9 times as fast,
/// not twice: both threads take the block cache's and the store state's locks — and
/// its answer is the same: each row keeps its place among the candidates (the lower
/// half's first), which orders ties as a single walk would.
///
/// A record the compiled request cannot judge (an external binary it reads) is judged
/// as an object afterwards, on the caller's thread: managed objects never leave it.
extension ObjectContext {
    /// The processors this process may run on, read once: `activeProcessorCount` reads
    /// the cgroup's files at every call (eight system calls, about a tenth of a small
    /// indexed query's time when each fetch asked).
    static let processors = ProcessInfo.processInfo.activeProcessorCount

    /// How a scan of `tag` is cut in two — the first key of the upper half, and the
    /// compiled request the second thread judges with (a request's field slots are
    /// scratch space: each thread has its own) — or nil when it runs on one thread.
    func parallelScanPlan(_ request: FetchRequest, tag: UInt16) -> (split: RecordKey, compiled: [UInt16: CompiledFetch])? {
        guard Self.processors > 1 else { return nil }
        let next = store.nextSerial(tag: tag)
        let minimum = UInt64(max(1, store.options.parallelScanMinimum))
        guard next > minimum, next > 2, let compiled = compileFetch(request, tags: [tag]).fetches else { return nil }
        return (StoreSchema.key(tag: tag, serial: (1 + next) / 2), compiled)
    }

    /// Judges the records of `tag` below the plan's split here and those from it on a
    /// second thread, then hands both halves' rows to `run`'s collector.
    func scanInParallel(_ request: FetchRequest, tag: UInt16, plan: (split: RecordKey, compiled: [UInt16: CompiledFetch]), run: CompiledRun,
                        needed: Int?, keepObjects: Bool, judgeObject: (RecordKey, Int) throws -> Void) throws {
        let range = StoreSchema.range(tag: tag)
        // The lower half judges with the fetch's own compiled request (idle meanwhile).
        // The upper half's positions start far past any count of the lower half's.
        let lower = ScanHalf(request, records: store.records, source: .range(range.lowerBound..<plan.split), compiled: run.compiled,
                             capacity: needed, position: run.position, keepsRecords: keepObjects)
        let upper = ScanHalf(request, records: store.records, source: .range(plan.split..<range.upperBound), compiled: plan.compiled,
                             capacity: needed, position: run.position + (1 << 48), keepsRecords: keepObjects)
        try judgeBoth(lower, upper, run: run, judgeObject: judgeObject)
        run.position = upper.position
    }

    /// The compiled request a second thread judges an index's candidates with, or nil
    /// when they are judged on one thread (`StoreOptions.parallelCandidateMinimum`).
    func parallelCandidatesPlan(_ request: FetchRequest, tags: [UInt16], candidates: Int) -> [UInt16: CompiledFetch]? {
        guard candidates >= max(2, store.options.parallelCandidateMinimum), Self.processors > 1 else { return nil }
        return compileFetch(request, tags: tags).fetches
    }

    /// Judges the first half of an index's candidates (`keys`, at `positions` among
    /// all of them) here and the second on a second thread, then hands both halves'
    /// rows to `run`'s collector. Candidates judged as objects are the caller's.
    func judgeCandidatesInParallel(_ request: FetchRequest, keys: [LocatedKey], positions: [Int], compiled: [UInt16: CompiledFetch], run: CompiledRun,
                                   needed: Int?, keepObjects: Bool, judgeObject: (RecordKey, Int) throws -> Void) throws {
        let middle = keys.count / 2
        func half(_ part: Range<Int>, compiled: [UInt16: CompiledFetch]) -> ScanHalf {
            ScanHalf(request, records: store.records, source: .located(Array(keys[part]), positions: Array(positions[part])),
                     compiled: compiled, capacity: needed, position: 0, keepsRecords: keepObjects)
        }
        try judgeBoth(half(0..<middle, compiled: run.compiled), half(middle..<keys.count, compiled: compiled), run: run, judgeObject: judgeObject)
    }

    /// Runs `upper` on a second thread and `lower` here, then merges their rows into
    /// `run` and judges as objects what they could not judge on records.
    private func judgeBoth(_ lower: ScanHalf, _ upper: ScanHalf, run: CompiledRun, judgeObject: (RecordKey, Int) throws -> Void) throws {
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { upper.scan() }
        lower.scan()
        group.wait()
        if let failure = lower.failure ?? upper.failure { throw failure }
        for scanned in [lower, upper] {
            for row in scanned.run.collector.finish() where try run.collector.accepts(row.values, position: row.position) {
                run.collector.add(row)
            }
            for left in scanned.asObjects { try judgeObject(left.key, left.position) }
        }
    }
}

/// One half of a parallel scan, judged on the thread that calls `scan`. Only that
/// thread touches it until `scan` returns (the dispatch group orders the caller's
/// reads after it); it holds no managed object.
final class ScanHalf: @unchecked Sendable {
    struct Left {
        var key: RecordKey
        var position: Int
    }

    /// What a half reads: a range of the entity's keys (a scan), or an index's
    /// candidates with their places among all of them.
    enum Source {
        case range(Range<RecordKey>)
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

    /// A half of `request` judged with `compiled` (its own: a compiled request's field
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
            case .range(let range):
                try records.visitRecordRuns(in: range) { views in
                    for view in views {
                        try judge(view)
                        position += 1
                    }
                    return true
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
