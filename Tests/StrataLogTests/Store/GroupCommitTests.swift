import Foundation
@testable import StrataLog
import StrataTestSupport
import Testing

/// Group commit: durable commits that arrive while an fsync runs share the next one,
/// each returns only once its own bytes are durable, and a power loss keeps every
/// acknowledged commit.
@Suite struct GroupCommitTests {
    static let root = "/store"

    /// Runs `threads` committers of `commits` single-key transactions each; returns the
    /// keys whose commits returned, in no particular order (also into `acknowledged`,
    /// which another thread may read meanwhile).
    static func commitConcurrently(_ store: LogStore, threads: Int, commits: Int, stopOnError: Bool = true,
                                   acknowledged: Locked<[UInt64]> = Locked([])) -> [UInt64] {
        // Threads of their own: `concurrentPerform` runs as many at once as there are
        // cores, two here, and two committers taking turns never share an fsync.
        onThreads(threads) { thread in
            for i in 0 ..< commits {
                let key = UInt64(thread * 100_000 + i + 1)
                var batch = WriteBatch()
                batch.put(RecordKey(key), value: LogFixtures.value(key))
                do {
                    try store.commit(batch)
                    acknowledged.withLock { $0.append(key) }
                } catch {
                    if stopOnError { return }
                }
            }
        }
        return acknowledged.withLock { $0 }
    }

    /// Runs `body(i)` for each i below `count` on `count` threads at once; returns when all have.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for i in 0 ..< count {
            group.enter()
            let thread = Thread {
                body(i)
                group.leave()
            }
            thread.start()
        }
        group.wait()
    }

    /// The syncer is a thread per store that commits: a read-only store and a snapshot,
    /// which never commit, start none (a service holding many snapshots would hold as
    /// many idle threads), and still read and close.
    @Test func onlyAStoreThatCommitsStartsASyncerThread() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, fileSystem: memory, logger: .quiet)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: LogFixtures.value(1))
        try store.commit(batch)
        #expect(store.groupCommit.hasSyncerThread)
        let snapshot = try store.snapshot()
        #expect(!snapshot.groupCommit.hasSyncerThread)
        #expect(try snapshot.get(RecordKey(1))?.value == LogFixtures.value(1))
        snapshot.release()
        try store.close()
        var options = LogStoreOptions()
        options.readOnly = true
        let reader = try LogStore.open(at: Self.root, options: options, fileSystem: memory, logger: .quiet)
        #expect(!reader.groupCommit.hasSyncerThread)
        #expect(try reader.get(RecordKey(1))?.value == LogFixtures.value(1))
        #expect(throws: StrataError.self) { try reader.commit(batch) }
        try reader.close()
    }

    @Test func concurrentCommitsShareFsyncs() throws {
        let memory = InMemoryFileSystem()
        let fs = SlowSyncFileSystem(wrapping: memory, delay: .milliseconds(4))
        let store = try LogStore.open(at: Self.root, fileSystem: fs, logger: .quiet)
        let acknowledged = Self.commitConcurrently(store, threads: 8, commits: 25)
        #expect(acknowledged.count == 200)
        let syncs = store.statistics.syncs
        // One committer alone would need 200 fsyncs; eight waiting together need far fewer.
        #expect(syncs < 100, "\(syncs) fsyncs for 200 commits")
        try store.close()
        // Every commit returned durable: a power loss now loses none of them.
        memory.crash()
        let reopened = try LogStore.open(at: Self.root, fileSystem: memory, logger: .quiet)
        for key in acknowledged {
            #expect(try reopened.get(RecordKey(key))?.value == LogFixtures.value(key))
        }
    }

    @Test func powerLossMidGroupKeepsEveryAcknowledgedCommit() throws {
        for round in 0 ..< 6 {
            let memory = InMemoryFileSystem()
            let fs = SlowSyncFileSystem(wrapping: memory, delay: .milliseconds(2))
            var options = LogStoreOptions()
            // Small segments, so that rolls land among the waiting committers.
            options.segmentSizeLimit = 4 << 10
            let store = try LogStore.open(at: Self.root, options: options, fileSystem: fs, logger: .quiet)
            let acknowledged = Locked<[UInt64]>([])
            // The power is cut at a moment among the commits, once a share of them that
            // grows with the round was acknowledged (counted, not timed: a busy machine
            // may start the committers late): the copy holds what a disk would, and
            // every commit acknowledged before the cut must be in it.
            let cut = Locked<(InMemoryFileSystem, [UInt64])?>(nil)
            let crashed = DispatchSemaphore(value: 0)
            let finished = Locked(false)
            DispatchQueue.global().async {
                while acknowledged.withLock({ $0.count }) < 1 + round * 100 && !finished.withLock({ $0 }) { usleep(200) }
                let before = acknowledged.withLock { $0 }
                cut.withLock { $0 = (memory.crashedCopy(), before) }
                crashed.signal()
            }
            _ = Self.commitConcurrently(store, threads: 6, commits: 120, acknowledged: acknowledged)
            finished.withLock { $0 = true }
            crashed.wait()
            try store.close()
            let (disk, keys) = try #require(cut.withLock { $0 })
            #expect(!keys.isEmpty)
            let reopened = try LogStore.open(at: Self.root, options: options, fileSystem: disk, logger: .quiet)
            for key in keys {
                #expect(try reopened.get(RecordKey(key))?.value == LogFixtures.value(key), "round \(round): acknowledged key \(key) lost")
            }
            try reopened.close()
        }
    }

    @Test func aFailedFsyncFailsEveryWaiterAndTheStoreTurnsReadOnly() throws {
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: SlowSyncFileSystem(wrapping: memory, delay: .milliseconds(2)))
        let store = try LogStore.open(at: Self.root, fileSystem: faults, logger: .quiet)
        var first = WriteBatch()
        first.put(RecordKey(1), value: [1])
        try store.commit(first)
        faults.inject(.fail(.sync, errno: EIO, matching: "segments/", on: .always))
        let acknowledged = Self.commitConcurrently(store, threads: 4, commits: 5, stopOnError: false)
        #expect(acknowledged.isEmpty)
        #expect(store.writeRefusal?.code == .readOnly)
        #expect(throws: StrataError.self) { try store.commit(first) }
    }

    /// An fsync made under the writer lock (`sync()`, a roll) that fails fails the
    /// commits still waiting for theirs: a later fsync of the same file can succeed
    /// after the kernel dropped the dirty pages, and must not acknowledge them.
    @Test func anFsyncFailedUnderTheWriterLockFailsTheCommitsWaiting() async throws {
        let faults = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        let store = try LogStore.open(at: Self.root, fileSystem: faults, logger: .quiet)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        let blocking = try store.commitPending(batch)
        batch.put(RecordKey(2), value: [2])
        let suspending = try store.commitPending(batch)
        // One failed fsync; the next one succeeds, as Linux's may once it dropped the pages.
        faults.inject(.fail(.sync, errno: EIO, matching: "segments/", on: .once))
        #expect(throws: StrataError.self) { try store.sync() }
        #expect(throws: StrataError.self) { try store.waitUntilDurable(blocking) }
        await #expect(throws: StrataError.self) { try await store.durable(suspending) }
        #expect(store.writeRefusal?.code == .readOnly)
    }

    @Test func pendingCommitsAreVisibleAtOnceAndDurableAfterTheWait() async throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, fileSystem: memory, logger: .quiet)
        var batch = WriteBatch()
        batch.put(RecordKey(7), value: [7, 7])
        let pending = try store.commitPending(batch)
        #expect(try store.get(RecordKey(7))?.value == [7, 7])
        try await store.durable(pending)
        #expect(pending.sequence == store.lastSequence)
        memory.crash()
        let reopened = try LogStore.open(at: Self.root, fileSystem: memory, logger: .quiet)
        #expect(try reopened.get(RecordKey(7))?.value == [7, 7])
    }

    @Test func periodicDurabilityOwesNoWait() throws {
        var options = LogStoreOptions()
        options.durability = .none
        let store = try LogStore.open(at: Self.root, options: options, fileSystem: InMemoryFileSystem(), logger: .quiet)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        let before = store.statistics.syncs
        try store.waitUntilDurable(try store.commitPending(batch))
        #expect(store.statistics.syncs == before)
    }
}
