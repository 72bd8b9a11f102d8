import Foundation
import StrataLog

/// A store's async lanes: reader threads, one writer lane, and the count of work in
/// flight that ``ObjectStore/close()-(async)`` waits for and ``ObjectStore/health`` reports.
///
/// One writer lane, because a store has one writer: closures that write run one at a
/// time, each checking and appending its save in turn, while their fsyncs are shared
/// (group commit) — the lane moves on as soon as a commit is appended, and its caller
/// waits for durability suspended, not on the lane.
final class StoreLanes: Sendable {
    struct Counts {
        var inFlight = 0
        var pendingWrites = 0
        var closing = false
        var drained: [CheckedContinuation<Void, Never>] = []
        /// Set once the close that began has closed the store.
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let readers: WorkQueue
    let writer: WorkQueue
    private let counts = Locked(Counts())

    init(readerThreads: Int) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        readers = WorkQueue(name: "strata.read", threads: readerThreads > 0 ? readerThreads : max(2, cores))
        writer = WorkQueue(name: "strata.write", threads: 1)
    }

    deinit {
        // A store released without a close: its threads end once their queues are empty.
        stop()
    }

    /// Admits a read: `.closed` once closing began.
    func beginRead() throws {
        try counts.withLock { c in
            if c.closing { throw Self.closedError }
            c.inFlight += 1
        }
    }

    /// Admits a write: `.closed` once closing began, `.limitExceeded` at once when
    /// `limit` writes are already queued, running or waiting for their fsync.
    func beginWrite(limit: Int) throws {
        try counts.withLock { c in
            if c.closing { throw Self.closedError }
            guard c.pendingWrites < max(1, limit) else {
                throw StrataError(.limitExceeded, "the store already holds its maximum of \(max(1, limit)) pending writes (maxPendingWrites): try again later",
                                  context: ["limit": "maxPendingWrites", "pendingWrites": "\(c.pendingWrites)"])
            }
            c.inFlight += 1
            c.pendingWrites += 1
        }
    }

    func end(write: Bool) {
        let drained = counts.withLock { c -> [CheckedContinuation<Void, Never>] in
            c.inFlight -= 1
            if write { c.pendingWrites -= 1 }
            guard c.inFlight == 0 else { return [] }
            defer { c.drained.removeAll() }
            return c.drained
        }
        drained.forEach { $0.resume() }
    }

    var pendingWrites: Int { counts.withLock { $0.pendingWrites } }
    var isClosing: Bool { counts.withLock { $0.closing } }

    /// Refuses new work from now on; true when this call began closing.
    @discardableResult
    func refuseNewWork() -> Bool {
        counts.withLock { c in
            defer { c.closing = true }
            return !c.closing
        }
    }

    /// Returns once no admitted work is in flight.
    func drained() async {
        await withCheckedContinuation { continuation in
            let now = counts.withLock { c -> Bool in
                if c.inFlight == 0 { return true }
                c.drained.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns once the close that began has finished (``closeFinished()``).
    func closeCompleted() async {
        await withCheckedContinuation { continuation in
            let now = counts.withLock { c -> Bool in
                if c.closed { return true }
                c.closeWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The close finished, well or not: callers waiting for it return.
    func closeFinished() {
        let waiters = counts.withLock { c -> [CheckedContinuation<Void, Never>] in
            c.closed = true
            defer { c.closeWaiters.removeAll() }
            return c.closeWaiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Ends the lanes' threads once their queues are empty.
    func stop() {
        readers.stop()
        writer.stop()
    }

    static let closedError = StrataError(.closed, "the store is closed or closing")
}
