/// A serial executor on a thread of Strata's own: an actor isolated to it runs its
/// methods there, one at a time, so a context it holds (not `Sendable`) stays confined
/// and its reads and saves never block Swift's cooperative pool. StrataData's
/// `@ModelActor` actors run on one each.
package final class LaneExecutor: SerialExecutor, Sendable {
    private let queue: WorkQueue

    /// An executor whose thread, named `name`, starts with its first job and ends when
    /// the executor is released.
    package init(name: String = "strata.actor") {
        queue = WorkQueue(name: name, threads: 1)
    }

    deinit {
        queue.stop()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        enqueue(job, as: asUnownedSerialExecutor())
    }

    /// Runs `job` on this lane's thread as a job of `executor`, an executor that hands
    /// its jobs to the lane (a model actor's): the job must run on the executor its
    /// actor declares, or an isolation check there (`preconditionIsolated`,
    /// `assumeIsolated`) traps and every return to the actor hops once more.
    package func enqueue(_ job: consuming ExecutorJob, as executor: UnownedSerialExecutor) {
        let job = UnownedJob(job)
        queue.enqueue { job.runSynchronously(on: executor) }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs `body` on a thread of its own (an open that may migrate), resuming the caller after.
    package static func detached<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await WorkQueue.detached(name: "strata.open", body)
    }
}
