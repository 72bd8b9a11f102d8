import Foundation
@testable import StrataLog
import StrataTestSupport
import Testing

/// A writer killed between its appends and their fsync leaves them in the page cache
/// alone: the next open replays them, and vouches for them only once an fsync of its
/// own covers them, or a power loss after the restart would take what it vouched for.
@Suite struct KilledWriterTailTests {
    static let root = "/store"

    /// The file system a SIGKILL leaves after `commits` unsynced commits, and the last
    /// sequence they reached.
    static func killedWriter(commits: Int) throws -> (InMemoryFileSystem, UInt64) {
        let memory = InMemoryFileSystem()
        var options = LogStoreOptions()
        options.durability = .none
        let store = try LogStore.open(at: root, options: options, fileSystem: memory, logger: .quiet)
        for key in 1 ... UInt64(commits) {
            var batch = WriteBatch()
            batch.put(RecordKey(key), value: LogFixtures.value(key))
            try store.commit(batch)
        }
        let killed = memory.killedCopy()
        let last = store.lastSequence
        try store.close()
        return (killed, last)
    }

    @Test func theReplayedTailIsDurableOnlyOnceSynced() throws {
        let (killed, last) = try Self.killedWriter(commits: 3)
        let store = try LogStore.open(at: Self.root, fileSystem: killed, logger: .quiet)
        defer { try? store.close() }
        #expect(store.lastSequence == last)
        #expect(store.durableSequence == last - 3)
        #expect(try store.syncVisible() == last)
        #expect(store.durableSequence == last)
        let afterPowerLoss = try LogStore.open(at: Self.root, fileSystem: killed.crashedCopy(), logger: .quiet)
        defer { try? afterPowerLoss.close() }
        #expect(afterPowerLoss.lastSequence == last)
    }

    /// `sync()` and `close()` promise every commit durable, the replayed ones too,
    /// though this store appended none.
    @Test(arguments: [false, true]) func syncOrCloseMakesTheReplayedTailDurable(closing: Bool) throws {
        let (killed, last) = try Self.killedWriter(commits: 3)
        let store = try LogStore.open(at: Self.root, fileSystem: killed, logger: .quiet)
        if closing { try store.close() } else { try store.sync() }
        let afterPowerLoss = try LogStore.open(at: Self.root, fileSystem: killed.crashedCopy(), logger: .quiet)
        defer { try? afterPowerLoss.close() }
        #expect(afterPowerLoss.lastSequence == last)
        if !closing { try store.close() }
    }

    @Test func theFirstCommitAfterTheOpenMakesTheTailDurableWithIt() throws {
        let (killed, last) = try Self.killedWriter(commits: 3)
        let store = try LogStore.open(at: Self.root, fileSystem: killed, logger: .quiet)
        defer { try? store.close() }
        var batch = WriteBatch()
        batch.put(RecordKey(4), value: LogFixtures.value(4))
        try store.commit(batch)
        #expect(store.durableSequence == last + 1)
        let afterPowerLoss = try LogStore.open(at: Self.root, fileSystem: killed.crashedCopy(), logger: .quiet)
        defer { try? afterPowerLoss.close() }
        for key in UInt64(1) ... 4 { #expect(try afterPowerLoss.get(RecordKey(key))?.value == LogFixtures.value(key)) }
    }

    /// A backup waits for the durability of what it copies: right after such an open it
    /// syncs the tail once and finishes.
    @Test func aBackupRightAfterTheOpenFinishesWithTheTail() throws {
        let (killed, last) = try Self.killedWriter(commits: 3)
        // Closed only once the backup finished: a close waits for the fsync under way.
        let store = try LogStore.open(at: Self.root, fileSystem: killed, logger: .quiet)
        // On a thread of its own, waited for a bounded time: a backup that syncs forever
        // fails the test rather than hanging the run.
        let report = Locked<Result<BackupReport, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            report.withLock { $0 = Result { try store.backup(to: "/copy") } }
            finished.signal()
        }
        try #require(finished.wait(timeout: .now() + 60) == .success, "the backup did not finish")
        try store.close()
        #expect(try report.withLock { $0 }?.get().sequence == last)
        let copy = try LogStore.open(at: "/copy", fileSystem: killed.crashedCopy(), logger: .quiet)
        defer { try? copy.close() }
        #expect(copy.lastSequence == last)
    }

    /// A writer killed between its roll's seal frame and the fsync after it leaves a
    /// sealed segment still listed as active, none of it necessarily on disk: the open
    /// that finishes the roll syncs the segment before it vouches for its commits.
    @Test func anOpenThatFinishesARollSyncsTheSealedSegment() throws {
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        var options = LogStoreOptions()
        options.durability = .none
        options.overlayEntryLimit = 4
        let store = try LogStore.open(at: Self.root, options: options, fileSystem: faults, logger: .quiet)
        // The seal's fsync fails: the seal frame is written and not synced, as a kill
        // right after the write leaves it.
        _ = faults.inject(.fail(.sync, matching: .hasSuffix(".seg")))
        #expect(throws: StrataError.self) {
            for key in UInt64(1) ... 8 {
                var batch = WriteBatch()
                batch.put(RecordKey(key), value: LogFixtures.value(key))
                try store.commit(batch)
            }
        }
        let killed = memory.killedCopy()
        try? store.close()

        let reopened = try LogStore.open(at: Self.root, fileSystem: killed, logger: .quiet)
        defer { try? reopened.close() }
        let last = reopened.lastSequence
        try #require(last >= 4, "the roll came after the overlay filled")
        #expect(try reopened.syncVisible() == last)
        let afterPowerLoss = try LogStore.open(at: Self.root, fileSystem: killed.crashedCopy(), logger: .quiet)
        defer { try? afterPowerLoss.close() }
        #expect(afterPowerLoss.lastSequence == last)
        for key in UInt64(1) ... last { #expect(try afterPowerLoss.get(RecordKey(key))?.value == LogFixtures.value(key)) }
    }
}
