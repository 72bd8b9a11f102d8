import Dispatch
import Foundation
@testable import Strata
import StrataLog
import StrataTestSupport
import Testing

/// History hands out only transactions a crash keeps. A commit is visible before its
/// fsync returns (group commit, or a durability mode that syncs later); a token for
/// one a power loss then took would name a sequence that the next commit after the
/// restart takes again, and a consumer following that token would skip it. A store
/// restored from an older copy and written since does the same to a token it did not
/// hand out: it refuses that token.
@Suite struct HistoryDurabilityTests {
    /// Holds the first fsync of a segment after `arm()` until `release` is signalled,
    /// before it makes anything durable.
    final class HeldSegmentSync: FileSystemWrapper {
        let base: any FileSystem
        let armed = Locked(false)
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        init(wrapping base: any FileSystem) { self.base = base }

        func arm() { armed.withLock { $0 = true } }

        func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
            let file = try base.open(path, mode: mode)
            return path.contains("/segments/") ? HeldFile(base: file, owner: self) : file
        }

        final class HeldFile: StorageFileWrapper {
            let base: any StorageFile
            let owner: HeldSegmentSync

            init(base: any StorageFile, owner: HeldSegmentSync) {
                self.base = base
                self.owner = owner
            }

            func sync() throws {
                if owner.armed.withLock({ was in defer { was = false }; return was }) {
                    owner.reached.signal()
                    owner.release.wait()
                }
                try base.sync()
            }
        }
    }

    static let root = "/store"

    static func options(_ fileSystem: any FileSystem, durability: LogStoreOptions.Durability = .everyCommit, readOnly: Bool = false) -> StoreOptions {
        var options = StoreOptions()
        options.fileSystem = fileSystem
        options.logger = .quiet
        options.historyTracking = true
        options.log.durability = durability
        options.log.readOnly = readOnly
        return options
    }

    /// The sequences history lists after `token` in the store a power loss would leave.
    static func sequencesAfterPowerLoss(_ memory: InMemoryFileSystem, after token: HistoryToken) throws -> [UInt64] {
        let reopened = try ObjectStore(at: root, model: try HistoryTests.model(), options: options(memory.crashedCopy()))
        defer { try? reopened.close() }
        return try reopened.fetchHistory(after: token).map(\.token.sequence)
    }

    @Test func aFetchAndTheCurrentTokenWaitForTheFsyncOfTheCommitTheyName() throws {
        let memory = InMemoryFileSystem()
        let fs = HeldSegmentSync(wrapping: memory)
        let store = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: Self.options(fs))
        defer { try? store.close() }
        let context = store.newContext()
        _ = try HistoryTests.insert(context, "first")
        try context.save()
        let start = store.currentHistoryToken

        // A save whose commit is appended, visible, and held in its fsync.
        fs.arm()
        let saved = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let context = store.newContext()
            _ = try? HistoryTests.insert(context, "second")
            try? context.save()
            saved.signal()
        }
        try #require(fs.reached.wait(timeout: .now() + 30) == .success)
        #expect(store.records.lastSequence == start.sequence + 1)
        // Not durable: a power loss now keeps nothing after `start`.
        #expect(try Self.sequencesAfterPowerLoss(memory, after: start) == [])

        let listed = Locked<[UInt64]?>(nil)
        let current = Locked<UInt64?>(nil)
        let answered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            listed.withLock { $0 = (try? store.fetchHistory(after: start))?.map(\.token.sequence) }
            answered.signal()
        }
        Thread.detachNewThread {
            current.withLock { $0 = store.currentHistoryToken.sequence }
            answered.signal()
        }
        // Both wait for the fsync rather than hand out what a crash could take.
        #expect(answered.wait(timeout: .now() + 0.3) == .timedOut)
        fs.release.signal()
        for _ in 0..<2 { try #require(answered.wait(timeout: .now() + 30) == .success) }
        try #require(saved.wait(timeout: .now() + 30) == .success)
        #expect(listed.withLock { $0 } == [start.sequence + 1])
        #expect(current.withLock { $0 } == start.sequence + 1)
        #expect(try Self.sequencesAfterPowerLoss(memory, after: start) == [start.sequence + 1])
    }

    @Test(arguments: [LogStoreOptions.Durability.none, .periodic(milliseconds: 60_000)])
    func aFeedSyncsWhatItDeliversWhateverTheDurability(_ durability: LogStoreOptions.Durability) async throws {
        let memory = InMemoryFileSystem()
        let store = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: Self.options(memory, durability: durability))
        defer { try? store.close() }
        let start = store.currentHistoryToken
        var feed = store.changes(after: start).makeAsyncIterator()
        let context = store.newContext()
        for name in ["a", "b", "c"] {
            _ = try HistoryTests.insert(context, name)
            try context.save()
        }
        var delivered: [UInt64] = []
        while delivered.count < 3, let next = try await feed.next() { delivered.append(next.token.sequence) }
        #expect(delivered == [start.sequence + 1, start.sequence + 2, start.sequence + 3])
        // Each one the feed handed out is there after a power loss.
        #expect(try Self.sequencesAfterPowerLoss(memory, after: start) == delivered)
    }

    @Test func aReadOnlyStoreMakesTheWritersCommitsItListsDurable() throws {
        let memory = InMemoryFileSystem()
        let writer = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: Self.options(memory, durability: .none))
        defer { try? writer.close() }
        let start = writer.currentHistoryToken
        let reader = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: Self.options(memory, readOnly: true))
        defer { try? reader.close() }
        let context = writer.newContext()
        for name in ["a", "b"] {
            _ = try HistoryTests.insert(context, name)
            try context.save()
        }
        #expect(try Self.sequencesAfterPowerLoss(memory, after: start) == [])
        #expect(try reader.refresh())
        let listed = try reader.fetchHistory(after: start).map(\.token.sequence)
        #expect(listed == [start.sequence + 1, start.sequence + 2])
        #expect(try Self.sequencesAfterPowerLoss(memory, after: start) == listed)
    }

    @Test func aStoreRestoredFromAnOlderBackupRefusesATokenItDidNotHandOut() async throws {
        let memory = InMemoryFileSystem()
        let store = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: Self.options(memory))
        let context = store.newContext()
        for name in ["a", "b"] {
            _ = try HistoryTests.insert(context, name)
            try context.save()
        }
        let shared = try #require(try store.fetchHistory().last?.token)
        _ = try await store.backup(to: "/backup")
        _ = try HistoryTests.insert(context, "c")
        try context.save()
        // The consumer took the last transaction, and keeps its token as JSON.
        let kept = try JSONEncoder().encode(try #require(try store.fetchHistory(after: shared).last?.token))
        try await store.close()

        // Restored from the backup, the store is written again: its next transaction
        // takes the sequence of the one the backup missed.
        let restored = try ObjectStore(at: "/backup", model: try HistoryTests.model(), options: Self.options(memory))
        defer { try? restored.close() }
        let writer = restored.newContext()
        for name in ["c2", "d2"] {
            _ = try HistoryTests.insert(writer, name)
            try writer.save()
        }
        let token = try JSONDecoder().decode(HistoryToken.self, from: kept)
        #expect(token.sequence == shared.sequence + 1)
        #expect(token.storeIdentifier == restored.identifier)
        #expect { try restored.fetchHistory(after: token) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        var feed = restored.changes(after: token).makeAsyncIterator()
        await #expect { _ = try await feed.next() } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        // A token both share still follows the restored store, and one made from a
        // sequence alone (an older encoding, without the checksum) is not checked.
        #expect(try restored.fetchHistory(after: shared).map(\.token.sequence) == [shared.sequence + 1, shared.sequence + 2])
        let bare = try JSONDecoder().decode(HistoryToken.self, from: Data(#"{"sequence":\#(token.sequence),"storeIdentifier":"\#(token.storeIdentifier)"}"#.utf8))
        #expect(bare == token)
        #expect(try restored.fetchHistory(after: bare).map(\.token.sequence) == [shared.sequence + 2])
    }

    /// A chunked commit holds the writer lock while it asks the handler for objects:
    /// history reads in the handler neither wait for the lock nor deadlock on it.
    @Test func historyReadsInsideAChunkedInsertReturn() throws {
        var options = Self.options(InMemoryFileSystem(), durability: .none)
        options.insertChunkSize = 16
        let store = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: options)
        let start = store.currentHistoryToken
        let context = store.newContext()
        _ = try HistoryTests.insert(context, "before")
        try context.save()
        // On a thread of its own: a read that waited for the insert's lock would hold
        // it forever, and the test reports that instead of hanging.
        let seen = Locked<Result<[UInt64], any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var produced = 0
            var read: [UInt64] = []
            let result = Result {
                try store.batchInsert(entityName: "Employee") { values in
                    guard produced < 100 else { return true }
                    if produced == 50 {
                        read = try store.fetchHistory(after: start).map(\.token.sequence)
                        read.append(store.currentHistoryToken.sequence)
                    }
                    values = ["name": .string("e\(produced)"), "salary": .double(1)]
                    produced += 1
                    return false
                }
                return read
            }
            seen.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + 60) == .success else {
            Issue.record("the insert did not return: a history read in its handler waits for the lock the insert holds")
            return
        }
        defer { try? store.close() }
        #expect(try seen.withLock { $0 }?.get() == [start.sequence + 1, start.sequence + 1])
        #expect(try store.fetchHistory(after: start).map(\.token.sequence) == [start.sequence + 1, start.sequence + 2])
    }

    /// After a failed fsync the store refuses writes until reopened; history still
    /// lists what was durable before it, and refuses what the fsync was to cover.
    @Test func afterAFailedFsyncHistoryListsWhatWasDurableBeforeIt() throws {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let store = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: Self.options(fs))
        defer { try? store.close() }
        let start = store.currentHistoryToken
        let context = store.newContext()
        _ = try HistoryTests.insert(context, "durable")
        try context.save()
        _ = fs.inject(.fail(.sync, matching: "segments/"))
        _ = try HistoryTests.insert(context, "lost")
        #expect(throws: StrataError.self) { try context.save() }
        #expect(store.records.lastSequence == start.sequence + 2)
        #expect(try store.fetchHistory(after: start, limit: 1).map(\.token.sequence) == [start.sequence + 1])
        #expect { try store.fetchHistory(after: start) } throws: { ($0 as? StrataError)?.code == .io }
        #expect(store.currentHistoryToken.sequence == start.sequence + 1)
    }

    /// A store opened after its writer was killed does not vouch for what that writer
    /// appended and never synced: the page cache holds it, a power loss would not. The
    /// current token and a fetch sync it before they name it.
    @Test(arguments: [false, true])
    func afterAKilledWriterHistorySyncsWhatTheOpenFoundUnsynced(fetching: Bool) throws {
        let memory = InMemoryFileSystem()
        let store = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: Self.options(memory, durability: .none))
        defer { try? store.close() }
        let start = store.currentHistoryToken
        let context = store.newContext()
        for name in ["a", "b", "c"] {
            _ = try HistoryTests.insert(context, name)
            try context.save()
        }
        let killed = memory.killedCopy()
        #expect(try Self.sequencesAfterPowerLoss(killed, after: start) == [])

        let reopened = try ObjectStore(at: Self.root, model: try HistoryTests.model(), options: Self.options(killed))
        defer { try? reopened.close() }
        let named = fetching ? try reopened.fetchHistory(after: start).last?.token.sequence : reopened.currentHistoryToken.sequence
        #expect(named == start.sequence + 3)
        #expect(try Self.sequencesAfterPowerLoss(killed, after: start) == [start.sequence + 1, start.sequence + 2, start.sequence + 3])
    }
}
