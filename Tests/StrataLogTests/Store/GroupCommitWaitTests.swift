import Foundation
@testable import StrataLog
import StrataTestSupport
import Testing

/// A wait names the end of bytes already written, whether or not a commit announced
/// them (a backup or a history read asks for the end of what it sees): one fsync
/// covers them and the wait returns, blocking or suspended.
@Suite struct GroupCommitWaitTests {
    /// A group commit over one file of `written` bytes, none of them announced, and a
    /// count of its fsyncs.
    static func unannounced(written: Int) throws -> (GroupCommit, InMemoryFileSystem, Locked<Int>) {
        let memory = InMemoryFileSystem()
        let file = try memory.open("/segment", mode: .create)
        try memory.syncDirectory("/")
        try file.write([UInt8](repeating: 7, count: written), at: 0)
        let syncs = Locked(0)
        let group = GroupCommit(onSync: { syncs.withLock { $0 += 1 } },
                                onFailure: { StrataError(.io, "\($0)") })
        group.reset(file: file, durable: LogPoint(segment: 1, end: 0))
        return (group, memory, syncs)
    }

    @Test(arguments: [true, false]) func aBlockingWaitPastWhatWasAnnouncedSyncsOnce(leading: Bool) throws {
        let (group, memory, syncs) = try Self.unannounced(written: 100)
        // On a thread of its own, waited for a bounded time: a wait that syncs forever
        // fails the test rather than hanging the run.
        let outcome = Locked<Result<Void, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            outcome.withLock { $0 = Result { try group.waitUntilDurable(LogPoint(segment: 1, end: 100), leading: leading) } }
            finished.signal()
        }
        guard finished.wait(timeout: .now() + 30) == .success else {
            // Ends the leader's loop, which would otherwise hold a core for the rest of the run.
            group.fail(StrataError(.io, "the wait did not return"))
            Issue.record("the wait did not return")
            return
        }
        try #require(try outcome.withLock { $0 }?.get() != nil)
        #expect(syncs.withLock { $0 } == 1)
        #expect(memory.durableBytes(of: "/segment")?.count == 100)
        group.close()
    }

    @Test func anAsyncWaitPastWhatWasAnnouncedSyncsOnce() async throws {
        let (group, memory, syncs) = try Self.unannounced(written: 100)
        // The wait runs in a task of its own, watched from a thread of its own rather
        // than timed by a task: the pool may be busy with other tests for longer than
        // any bound, while the wait is led by the syncer thread. A wait that syncs again
        // and again, never syncs, or syncs and never returns ends the test with an error
        // instead of hanging the run.
        let pending = Locked<CheckedContinuation<Void, any Error>?>(nil)
        let issued = Locked<ContinuousClock.Instant?>(nil)
        @Sendable func finish(_ result: Result<Void, any Error>) {
            pending.withLock { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            pending.withLock { $0 = continuation }
            Task {
                do {
                    issued.withLock { $0 = .now }
                    try await group.durable(LogPoint(segment: 1, end: 100))
                    finish(.success(()))
                } catch {
                    finish(.failure(error))
                }
            }
            Thread.detachNewThread {
                var syncedAt: ContinuousClock.Instant?
                while pending.withLock({ $0 != nil }) {
                    let count = syncs.withLock { $0 }
                    if count == 1, syncedAt == nil { syncedAt = .now }
                    let began = issued.withLock { $0 }
                    let problem: String? =
                        count > 1 ? "the wait synced \(count) times"
                        : count == 0 && began.map({ ContinuousClock.now - $0 > .seconds(30) }) == true ? "the wait never synced"
                        : syncedAt.map({ ContinuousClock.now - $0 > .seconds(1_200) }) == true ? "the wait synced and did not return"
                        : nil
                    if let problem {
                        let error = StrataError(.io, problem)
                        group.fail(error)
                        finish(.failure(error))
                        return
                    }
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
        }
        #expect(syncs.withLock { $0 } == 1)
        #expect(memory.durableBytes(of: "/segment")?.count == 100)
        group.close()
    }
}
