import Foundation
import StrataLog

/// A queue of jobs run by threads of Strata's own, never by Swift's cooperative pool:
/// a read, a save's fsync wait or a migration may block its thread, and the pool has
/// one thread a core (two on a small server), so blocking it stalls every task of the
/// process — a service's `/health` included.
///
/// The threads start with the first job and end after ``stop()`` once the queue is
/// empty. Jobs run in the order they were queued; with one thread, one at a time.
final class WorkQueue: @unchecked Sendable {
    // @unchecked: every stored var is read and written with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var started = false
    private var stopped = false
    private var running = 0
    private let threadCount: Int
    private let name: String

    init(name: String, threads: Int) {
        self.name = name
        self.threadCount = max(1, threads)
    }

    /// Queues `job`; false once the queue is stopped (the job is not run).
    @discardableResult
    func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        guard !stopped else {
            condition.unlock()
            return false
        }
        jobs.append(job)
        let start = !started
        started = true
        if start { running = threadCount }
        condition.signal()
        condition.unlock()
        if start {
            for i in 0 ..< threadCount { spawn(i) }
        }
        return true
    }

    /// Lets the threads finish the queued jobs and end; later jobs are refused.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func spawn(_ i: Int) {
        startThread(named: threadCount == 1 ? name : "\(name)-\(i)", stackSize: Self.stackSize) { [self] in loop() }
    }

    /// Predicates and model code recurse; the 512 KiB default of a secondary thread is tight.
    private static let stackSize = 4 << 20

    /// The name of the queue whose thread runs the caller, or nil off Strata's threads.
    static var current: String? { Thread.current.threadDictionary[threadKey] as? String }
    private static let threadKey = "strata.queue"

    private func loop() {
        Thread.current.threadDictionary[Self.threadKey] = name
        condition.lock()
        while true {
            while head == jobs.count && !stopped { condition.wait() }
            if head == jobs.count {
                running -= 1
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head >= 256 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job()
            condition.lock()
        }
    }

    /// Runs `body` on a thread of its own (an open that may migrate, a compaction, a
    /// backup: long, rare work that must not hold a lane), resuming the caller after.
    ///
    /// - Parameter niceness: added to the thread's nice value (Linux schedules threads
    ///   one by one): background work given a positive one yields the cores to the
    ///   threads serving requests when they want them. The thread ends with `body`, so
    ///   nothing has to be restored.
    static func detached<T: Sendable>(name: String, niceness: Int32 = 0, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            startThread(named: name, stackSize: stackSize) {
                #if os(Linux)
                // `who` 0 is the calling thread: on Linux a nice value belongs to a thread.
                if niceness > 0 {
                    let which = __priority_which_t(PRIO_PROCESS.rawValue)
                    _ = setpriority(which, 0, getpriority(which, 0) + niceness)
                }
                #endif
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
