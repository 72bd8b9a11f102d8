import Foundation
import StrataLog

extension ObjectStore {
    /// Opens (or creates) the store at `path` for `model` on a thread of its own, so
    /// that recovery and a migration asked for in `options` never block Swift's
    /// cooperative pool.
    ///
    /// ```swift
    /// let store = try await ObjectStore.open(at: "/var/lib/todos/store", model: model)
    /// ```
    ///
    /// - Throws: what ``init(at:model:options:)`` throws; `CancellationError` when the
    ///   task is cancelled before the open starts.
    public static func open(at path: String, model: ObjectModel, options: StoreOptions = StoreOptions()) async throws -> ObjectStore {
        try Task.checkCancellation()
        return try await WorkQueue.detached(name: "strata.open") {
            try ObjectStore(at: path, model: model, options: options)
        }
    }

    /// Runs `body` with a new context on one of the store's reader threads and returns
    /// its result, as GRDB's `DatabasePool.read`: the calling task suspends, no thread
    /// of the cooperative pool waits. The context sees every commit made before the
    /// read started, and lives only for the call: return values, not objects.
    ///
    /// ```swift
    /// let title = try await store.read { context in
    ///     try context.existingObject(with: id).value(forKey: "title") as? String
    /// }
    /// ```
    ///
    /// - Throws: what `body` throws; `.closed` once ``close()-1eu98`` began;
    ///   `CancellationError` when the task is cancelled before `body` starts.
    public func read<T: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        // Measured from the start, so that a refusal (closed, cancelled) is counted as
        // a failed read in the store's metrics.
        try await measured(.read) {
            try Task.checkCancellation()
            try lanes.beginRead()
            defer { lanes.end(write: false) }
            return try await run(on: lanes.readers) { cancelled in
                if cancelled.isSet { throw CancellationError() }
                return try body(self.newContext())
            }
        }
    }

    /// Runs `body` with a new context on the store's writer lane, saves the context
    /// when `body` returns, and returns `body`'s result once the save is durable.
    ///
    /// Writes run one at a time on the lane, but their fsyncs are shared: the lane
    /// takes the next write as soon as a save is appended, and commits appended while
    /// an fsync runs are made durable by the next one (group commit). A save that
    /// meets a `.conflict` (another context changed an object `body` changed) runs
    /// `body` again on a new context, up to ``StoreOptions/writeConflictRetries`` times.
    ///
    /// ```swift
    /// let id = try await store.write { context in
    ///     let todo = try context.insert("Todo")
    ///     try todo.setValue(title, forKey: "title")
    ///     return todo.objectID
    /// }
    /// ```
    ///
    /// - Throws: what `body` or the save throws (`.validationFailed`, `.conflict` after
    ///   the retries, `.io`); `.limitExceeded` at once when
    ///   ``StoreOptions/maxPendingWrites`` writes are pending (a service answers 503);
    ///   `.closed` once ``close()-1eu98`` began; `CancellationError` when the task is
    ///   cancelled before `body` starts (nothing is written).
    public func write<T: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        // Measured from the start, so that a refusal (`.limitExceeded`, closed,
        // cancelled) is counted as a failed write in the store's metrics.
        try await measured(.write) {
            try Task.checkCancellation()
            try lanes.beginWrite(limit: options.maxPendingWrites)
            defer { lanes.end(write: true) }
            let (value, pending) = try await run(on: lanes.writer) { cancelled -> (T, PendingCommit?) in
                var retries = 0
                while true {
                    if cancelled.isSet { throw CancellationError() }
                    let context = self.newContext()
                    do {
                        let value = try body(context)
                        return (value, try context.saveAppending())
                    } catch let error as StrataError where error.code == .conflict && retries < self.options.writeConflictRetries {
                        retries += 1
                        self.instrument?.conflictRetried(.write)
                    }
                }
            }
            if let pending { try await records.durable(pending) }
            return value
        }
    }

    /// Waits for the reads and writes in flight, refusing new ones with `.closed` (a
    /// compaction under way stops within milliseconds, with `.closed`), then closes
    /// the store on a thread of its own (the close fsyncs) and ends the store's threads.
    /// A call made while another closes returns once that close has finished (the
    /// store's files closed and its lock released), with no error of its own.
    public func close() async throws {
        guard lanes.refuseNewWork() else { return await lanes.closeCompleted() }
        // A compaction under way counts as work in flight: it stops soon rather than
        // holding the close for the rest of its pass.
        records.stopCompaction()
        defer {
            lanes.stop()
            lanes.closeFinished()
        }
        await lanes.drained()
        try await WorkQueue.detached(name: "strata.close") { try self.closeRecords() }
    }

    /// What compaction adds to its thread's nice value: on a loaded machine the threads
    /// serving reads and commits get the cores first.
    static let maintenanceNiceness: Int32 = 10

    /// Compacts the store on a thread of its own, at a lower scheduling priority, while
    /// reads and writes go on:
    /// superseded versions and unreferenced blobs are reclaimed in bounded groups, and
    /// records of older layouts are written in the current one (their layouts leave the
    /// layout table once none is left) unless ``StoreOptions/compactionRewritesOlderLayouts``
    /// is off.
    ///
    /// Cancelling the calling task stops the compaction at its next frame with
    /// `CancellationError`: the groups it already swapped in stay, and the next
    /// compaction takes up the rest.
    ///
    /// - Parameters:
    ///   - force: compact every sealed segment, not only those past the garbage ratio.
    ///   - bytesPerSecond: read at most this many bytes of records a second; nil takes
    ///     the store's `LogStoreOptions.compactionBytesPerSecond`.
    @discardableResult
    public func compact(force: Bool = false, bytesPerSecond: Int? = nil) async throws -> CompactionReport {
        try Task.checkCancellation()
        try lanes.beginRead()
        defer { lanes.end(write: false) }
        // The task cancelled, the compaction stops at its next frame: the groups it
        // swapped in stay, and a later compaction takes up the rest.
        let cancellation = CompactionCancellation()
        let report = try await withTaskCancellationHandler {
            try await measured(.compact) {
                try await WorkQueue.detached(name: "strata.compact", niceness: Self.maintenanceNiceness) {
                    // History past its retention goes first, so that this pass reclaims it.
                    try self.trimHistory()
                    let rate = bytesPerSecond ?? self.segmentLog?.options.compactionBytesPerSecond
                    let report = try self.records.compact(force: force, bytesPerSecond: rate, cancellation: cancellation)
                    try self.dropRewrittenLayouts()
                    return report
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        instrument?.compacted(report)
        return report
    }

    /// Whether the store serves reads and writes, and how many writes are pending.
    public var health: StoreHealth {
        let pending = lanes.pendingWrites
        if lanes.isClosing { return StoreHealth(state: .closed, pendingWrites: pending) }
        guard let refusal = records.writeRefusal else { return StoreHealth(state: .open, pendingWrites: pending) }
        if refusal.code == .closed { return StoreHealth(state: .closed, pendingWrites: pending) }
        return StoreHealth(state: .readOnly(reason: refusal.message), pendingWrites: pending)
    }

    /// The id of the object of `entityName` with `serial` (``ObjectID/serial``), for
    /// ids that travel as numbers — a URL's path component — without building a URI.
    /// Whether the object exists is the context's to say (`existingObject(with:)`).
    ///
    /// - Returns: nil when the model has no such entity or `serial` is out of range.
    public func objectID(entityName: String, serial: UInt64) -> ObjectID? {
        guard let tag = schema.tags[entityName], serial > 0, serial < ObjectID.serialMask else { return nil }
        return ObjectID(entityName: entityName, key: StoreSchema.key(tag: tag, serial: serial), storeIdentifier: identifier)
    }

    /// Runs `work` on `queue`, resuming the caller with its result; `work` learns
    /// whether the task was cancelled while it waited in the queue.
    private func run<T: Sendable>(on queue: WorkQueue, _ work: @escaping @Sendable (CancelFlag) throws -> T) async throws -> T {
        let cancelled = CancelFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let queued = queue.enqueue { continuation.resume(with: Result { try work(cancelled) }) }
                if !queued { continuation.resume(throwing: StoreLanes.closedError) }
            }
        } onCancel: {
            cancelled.set()
        }
    }
}

/// Set when the task that queued a job is cancelled: the job then does not start.
final class CancelFlag: Sendable {
    private let flag = Locked(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}

/// Whether a store serves reads and writes: ``ObjectStore/health``. A service's
/// readiness probe answers from it.
public struct StoreHealth: Sendable, Equatable {
    /// The store's state.
    public enum State: Sendable, Equatable {
        /// Open for reads and writes.
        case open
        /// Open for reads; writes are refused (opened read-only, or a failed write or
        /// fsync made it read-only until reopened) for `reason`.
        case readOnly(reason: String)
        /// Closed or closing: new work is refused with `.closed`.
        case closed
    }

    /// The store's state.
    public var state: State
    /// Writes queued, running or waiting for their fsync.
    public var pendingWrites: Int

    /// Whether writes are accepted.
    public var isWritable: Bool { state == .open }

    package init(state: State, pendingWrites: Int) {
        self.state = state
        self.pendingWrites = pendingWrites
    }
}
