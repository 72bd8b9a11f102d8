import CoreMetrics
import Strata
import StrataLog

/// A store's metrics through swift-metrics, named as OpenTelemetry's database
/// conventions name them where they have a name:
///
/// - `db.client.operation.duration`, a timer with `db.system.name` = `strata` and
///   `db.operation.name` (read, write, fetch, save, compact, backup, migrate), and
///   `error.type` (the `StrataError` code) on failed operations;
/// - `strata.errors`, a counter by `db.operation.name` and `error.type`;
/// - `strata.commits`, `strata.fsyncs`, `strata.bytes.written`,
///   `strata.conflicts.retried`: counters;
/// - `strata.compaction.reclaimed.bytes`, `strata.compaction.steps`: counters, and
///   `strata.compaction.pause`, a timer of each compaction's longest hold on commits;
/// - `strata.store.size`, `strata.store.live.bytes` (bytes), `strata.garbage.ratio`,
///   `strata.block_cache.hit.ratio`, `strata.pending.writes`: gauges, set by
///   ``sample(_:)``.
///
/// Metrics are made through `factory` (the process's bootstrapped one by default).
public final class StoreMetrics: StoreInstrument, @unchecked Sendable {
    // @unchecked: `lastStatistics` is touched only under `sampling`; swift-metrics'
    // metric objects are thread-safe.
    private let factory: any MetricsFactory
    private let dimensions: [(String, String)]
    private let timers: [StoreOperation: Timer]
    private let commits: Counter
    private let fsyncs: Counter
    private let bytesWritten: Counter
    private let conflicts: Counter
    private let reclaimed: Counter
    private let compactionSteps: Counter
    private let compactionPause: Timer
    private let size: Gauge
    private let liveBytes: Gauge
    private let garbageRatio: Gauge
    private let hitRatio: Gauge
    private let pendingWrites: Gauge
    private let sampling = Locked<LogStatistics?>(nil)

    /// The operations given a timer up front; others get theirs on first use.
    static let operations: [StoreOperation] = [.read, .write, .fetch, .save, .compact, .backup, .migrate]

    /// - Parameters:
    ///   - dimensions: added to every metric, e.g. `[("db.namespace", "todos")]` when a
    ///     process has several stores.
    ///   - factory: where the metrics are made: the process's bootstrapped
    ///     `MetricsSystem.factory` unless a test gives its own.
    public init(dimensions: [(String, String)] = [], factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        self.dimensions = [("db.system.name", "strata")] + dimensions
        var timers: [StoreOperation: Timer] = [:]
        for operation in Self.operations {
            timers[operation] = Timer(label: "db.client.operation.duration", dimensions: self.dimensions + [("db.operation.name", operation.rawValue)], factory: factory)
        }
        self.timers = timers
        commits = Counter(label: "strata.commits", dimensions: self.dimensions, factory: factory)
        fsyncs = Counter(label: "strata.fsyncs", dimensions: self.dimensions, factory: factory)
        bytesWritten = Counter(label: "strata.bytes.written", dimensions: self.dimensions, factory: factory)
        conflicts = Counter(label: "strata.conflicts.retried", dimensions: self.dimensions, factory: factory)
        reclaimed = Counter(label: "strata.compaction.reclaimed.bytes", dimensions: self.dimensions, factory: factory)
        compactionSteps = Counter(label: "strata.compaction.steps", dimensions: self.dimensions, factory: factory)
        compactionPause = Timer(label: "strata.compaction.pause", dimensions: self.dimensions, factory: factory)
        size = Gauge(label: "strata.store.size", dimensions: self.dimensions, factory: factory)
        liveBytes = Gauge(label: "strata.store.live.bytes", dimensions: self.dimensions, factory: factory)
        garbageRatio = Gauge(label: "strata.garbage.ratio", dimensions: self.dimensions, factory: factory)
        hitRatio = Gauge(label: "strata.block_cache.hit.ratio", dimensions: self.dimensions, factory: factory)
        pendingWrites = Gauge(label: "strata.pending.writes", dimensions: self.dimensions, factory: factory)
    }

    package func operationFinished(_ operation: StoreOperation, duration: Duration, error: (any Error)?) {
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        guard let error else {
            let timer = timers[operation]
                ?? Timer(label: "db.client.operation.duration", dimensions: dimensions + [("db.operation.name", operation.rawValue)], factory: factory)
            timer.recordNanoseconds(nanoseconds)
            return
        }
        let type = Self.errorType(error)
        let failed = dimensions + [("db.operation.name", operation.rawValue), ("error.type", type)]
        Timer(label: "db.client.operation.duration", dimensions: failed, factory: factory).recordNanoseconds(nanoseconds)
        Counter(label: "strata.errors", dimensions: failed, factory: factory).increment()
    }

    package func conflictRetried(_ operation: StoreOperation) {
        conflicts.increment()
    }

    package func compacted(_ report: CompactionReport) {
        reclaimed.increment(by: max(0, report.segmentBytesBefore - report.segmentBytesAfter) + report.blobBytesReclaimed)
        compactionSteps.increment(by: report.steps)
        let pause = report.longestPause.components
        if report.longestPause > .zero { compactionPause.recordNanoseconds(pause.seconds * 1_000_000_000 + pause.attoseconds / 1_000_000_000) }
    }

    /// Sets the gauges from `store` and adds to the counters what its statistics
    /// gained since the last sample (a reset of the statistics starts them over).
    public func sample(_ store: ObjectStore) {
        let usage = store.records.usage
        sampling.withLock { last in
            // Read under the lock: two samples at once (the service's loop and the one
            // after a compaction) must not count an older snapshot after a newer one.
            let statistics = store.statistics
            func gained(_ value: (LogStatistics) -> Int) -> Int64 {
                let now = value(statistics), before = last.map(value) ?? 0
                return Int64(now >= before ? now - before : now)
            }
            commits.increment(by: gained(\.commits))
            fsyncs.increment(by: gained(\.syncs))
            bytesWritten.increment(by: gained { $0.segmentBytesWritten + $0.blobBytesWritten })
            last = statistics
        }
        size.record(usage.segmentBytes + usage.blobBytes)
        liveBytes.record(usage.liveRecordBytes + usage.liveBlobBytes)
        garbageRatio.record(usage.garbageRatio)
        hitRatio.record(store.statistics.blockCacheHitRatio)
        pendingWrites.record(store.health.pendingWrites)
    }

    /// `error.type`: a `StrataError`'s code, `cancelled`, or the error's type name.
    static func errorType(_ error: any Error) -> String {
        if let error = error as? StrataError { return error.code.rawValue }
        if error is CancellationError { return "cancelled" }
        return String(describing: type(of: error))
    }
}
