import Foundation

/// The thread that leads group commit's fsyncs for committers that do not lead
/// themselves: an async committer, a leader handing over, compaction. It is started
/// when the store opens, so it runs at the opener's priority. A dispatch queue would
/// not do: on Linux a queue's worker thread is created by the thread that queues the
/// work and inherits its nice value, so a compaction thread (nice + 10) queueing the
/// first hand-over would leave every later one to a thread that waits for a core.
final class SyncerThread: @unchecked Sendable {
    // @unchecked: `work`, `wanted` and `stopped` are read and written with `condition` locked.
    private let condition = NSCondition()
    private var work: (@Sendable () -> Void)?
    private var wanted = false
    private var stopped = false
    private var started = false

    /// Whether the thread was started (a store that never commits starts none).
    var isStarted: Bool {
        condition.lock()
        defer { condition.unlock() }
        return started
    }

    /// Starts the thread; `work` runs after a `wake()` (wakes that come before it runs
    /// count as one: group commit hands the syncer one leadership at a time).
    func start(name: String, work: @escaping @Sendable () -> Void) {
        condition.lock()
        self.work = work
        started = true
        condition.unlock()
        startThread(named: name) { [self] in loop() }
    }

    /// Has the thread run its work; false once it is stopped (the caller runs it elsewhere).
    func wake() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        wanted = true
        condition.signal()
        return true
    }

    /// Lets the thread end once the work asked for has run.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        condition.lock()
        while true {
            while !wanted && !stopped { condition.wait() }
            guard wanted, let work else { break }
            wanted = false
            condition.unlock()
            work()
            condition.lock()
        }
        work = nil
        condition.unlock()
    }
}
