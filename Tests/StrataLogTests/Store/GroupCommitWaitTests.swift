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
        // Watched from a thread of its own, not timed by this task: the pool that runs it
        // may be busy with other tests for longer than any bound, while the wait is led
        // by the syncer thread. A wait that syncs again and again, or never, is failed
        // (which ends it with an error) rather than left to hang the run.
        let returned = Locked(false)
        Thread.detachNewThread {
            let began = ContinuousClock.now
            while !returned.withLock({ $0 }) {
                let count = syncs.withLock { $0 }
                let waited = ContinuousClock.now - began
                if count > 1 || (count == 0 && waited > .seconds(30)) || waited > .seconds(300) {
                    group.fail(StrataError(.io, "the wait did not return after one fsync (\(count) so far)"))
                    return
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        defer { returned.withLock { $0 = true } }
        try await group.durable(LogPoint(segment: 1, end: 100))
        #expect(syncs.withLock { $0 } == 1)
        #expect(memory.durableBytes(of: "/segment")?.count == 100)
        group.close()
    }
}
