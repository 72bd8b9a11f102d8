import Foundation
@testable import Strata
@testable import StrataLog
import StrataTestSupport
import Testing

/// `ObjectStore.read`/`write`/`open`/`close` and `health`: work runs on the store's own
/// threads, writes save durably, retry conflicts, refuse past their limit, honour
/// cancellation, and close drains what is in flight.
@Suite struct AsyncAccessTests {
    static func store(_ options: StoreOptions = StoreOptions()) throws -> ObjectStore {
        try ObjectStore.inMemory(model: try ContextFixtures.company(), options: options)
    }

    @Test func writeSavesAndReadSeesIt() async throws {
        let store = try Self.store()
        let id = try await store.write { context in
            try ContextFixtures.employee(context, "Ada", salary: 120).objectID
        }
        let name = try await store.read { context in
            try context.existingObject(with: id).string("name")
        }
        #expect(name == "Ada")
        #expect(store.records.lastSequence > 0)
    }

    @Test func workRunsOnTheStoresThreadsNotThePool() async throws {
        let store = try Self.store()
        let readThread = try await store.read { _ in WorkQueue.current }
        let writeThread = try await store.write { _ in WorkQueue.current }
        #expect(readThread == "strata.read")
        #expect(writeThread == "strata.write")
    }

    #if os(Linux)
    /// `top -H`, `perf` and gdb read a thread's name from the kernel, not from Foundation.
    @Test func theStoresThreadsCarryTheirNamesInTheKernel() async throws {
        @Sendable func kernelName() -> String? {
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var options = StoreOptions()
        options.readerThreads = 2
        let store = try Self.store(options)
        let readThread = try await store.read { _ in kernelName() }
        let writeThread = try await store.write { _ in kernelName() }
        let detached = try await WorkQueue.detached(name: "strata.a-name-longer-than-the-kernel-keeps") { kernelName() }
        #expect(readThread == "strata.read-0" || readThread == "strata.read-1")
        #expect(writeThread == "strata.write")
        #expect(detached == "strata.a-name-l")
    }
    #endif

    @Test func aConflictRunsTheClosureAgain() async throws {
        let store = try Self.store()
        let id = try await store.write { context in try ContextFixtures.employee(context, "Ada").objectID }
        let attempts = Locked(0)
        let salary = try await store.write { context -> Double in
            let attempt = attempts.withLock { a -> Int in a += 1; return a }
            let ada = try context.existingObject(with: id)
            _ = try ada.string("name")
            if attempt == 1 {
                // Another context changes Ada after this one read her: the save conflicts.
                let other = store.newContext()
                try other.existingObject(with: id).setValue(Double(5), forKey: "salary")
                try other.save()
            }
            let raised = (try ada.double("salary") ?? 0) + 1
            try ada.setValue(raised, forKey: "salary")
            return raised
        }
        #expect(attempts.withLock { $0 } == 2)
        #expect(salary == 6)
        let stored = try await store.read { try $0.existingObject(with: id).double("salary") }
        #expect(stored == 6)
    }

    @Test func conflictsPastTheRetriesAreThrown() async throws {
        var options = StoreOptions()
        options.writeConflictRetries = 1
        let store = try Self.store(options)
        let id = try await store.write { context in try ContextFixtures.employee(context, "Ada").objectID }
        let attempts = Locked(0)
        await #expect(throws: StrataError.self) {
            try await store.write { context in
                attempts.withLock { $0 += 1 }
                let ada = try context.existingObject(with: id)
                _ = try ada.string("name")
                let other = store.newContext()
                try other.existingObject(with: id).setValue(Double(attempts.withLock { $0 }), forKey: "salary")
                try other.save()
                try ada.setValue("Ada L.", forKey: "name")
            }
        }
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test func writesPastTheLimitAreRefusedAtOnce() async throws {
        var options = StoreOptions()
        options.maxPendingWrites = 2
        let store = try Self.store(options)
        let gate = DispatchSemaphore(value: 0)
        let started = CancelFlag()
        async let first: Void = store.write { _ in started.set(); gate.wait() }
        while !started.isSet { try await Task.sleep(for: .milliseconds(1)) }
        async let second: Void = store.write { _ in }
        // Two pending (one running, one queued behind it): the third is refused.
        while store.health.pendingWrites < 2 { try await Task.sleep(for: .milliseconds(1)) }
        await #expect {
            try await store.write { _ in }
        } throws: { ($0 as? StrataError)?.code == .limitExceeded }
        gate.signal()
        try await first
        try await second
        #expect(store.health.pendingWrites == 0)
    }

    @Test func aCancelledTaskWritesNothing() async throws {
        let store = try Self.store()
        let before = store.records.lastSequence
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.write { context in _ = try ContextFixtures.employee(context, "Never") }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(store.records.lastSequence == before)
    }

    @Test func aWriteCancelledWhileQueuedDoesNotRun() async throws {
        let store = try Self.store()
        let gate = DispatchSemaphore(value: 0)
        let started = CancelFlag()
        let ran = Locked(false)
        async let blocker: Void = store.write { _ in started.set(); gate.wait() }
        while !started.isSet { try await Task.sleep(for: .milliseconds(1)) }
        let queued = Task { try await store.write { context in ran.withLock { $0 = true }; _ = try ContextFixtures.employee(context, "Late") } }
        while store.health.pendingWrites < 2 { try await Task.sleep(for: .milliseconds(1)) }
        queued.cancel()
        gate.signal()
        try await blocker
        await #expect(throws: CancellationError.self) { try await queued.value }
        #expect(ran.withLock { $0 } == false)
    }

    /// A close begun while a write (inserting "Ada") is held on `gate`, returned once
    /// the store refuses new work: the write goes on when the gate is signalled.
    static func closingDuringAHeldWrite(_ store: ObjectStore) async throws
        -> (gate: DispatchSemaphore, write: Task<ObjectID, any Error>, close: Task<Void, any Error>) {
        let gate = DispatchSemaphore(value: 0)
        let started = CancelFlag()
        let write = Task { try await store.write { context in started.set(); gate.wait(); return try ContextFixtures.employee(context, "Ada").objectID } }
        while !started.isSet { try await Task.sleep(for: .milliseconds(1)) }
        let close = Task { try await store.close() }
        while !store.lanes.isClosing { try await Task.sleep(for: .milliseconds(1)) }
        return (gate, write, close)
    }

    @Test func closeWaitsForWorkInFlightThenRefusesNewWork() async throws {
        let store = try Self.store()
        let (gate, write, close) = try await Self.closingDuringAHeldWrite(store)
        #expect(store.health.state == .closed)
        await #expect { try await store.read { _ in 1 } } throws: { ($0 as? StrataError)?.code == .closed }
        gate.signal()
        // The write admitted before the close finishes and is saved.
        _ = try await write.value
        try await close.value
        await #expect { try await store.write { _ in } } throws: { ($0 as? StrataError)?.code == .closed }
        try await store.close()
    }

    /// A close called while another waits for work in flight returns only once the
    /// store is closed: its lock released, the store can be opened again at once.
    @Test func aSecondCloseReturnsOnceTheStoreIsClosed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/store"
        let model = try ContextFixtures.company()
        let store = try await ObjectStore.open(at: path, model: model)
        let (gate, write, first) = try await Self.closingDuringAHeldWrite(store)
        let second = Task { () async throws -> ObjectStore in
            try await store.close()
            return try await ObjectStore.open(at: path, model: model)
        }
        try await Task.sleep(for: .milliseconds(50))
        gate.signal()
        let id = try await write.value
        let reopened = try await second.value
        try await first.value
        #expect(try await reopened.read { try $0.existingObject(with: id).string("name") } == "Ada")
        try await reopened.close()
    }

    /// An async close after a synchronous one returns: the store is already closed.
    @Test func anAsyncCloseAfterASynchronousOneReturns() async throws {
        let store = try Self.store()
        // From a synchronous function, where `close()` is the synchronous one.
        func closeSynchronously() throws { try store.close() }
        try closeSynchronously()
        // Waited for a bounded time from the moment the close is called (not from the
        // test's, since the task may wait minutes for a pool other tests hold): a close
        // that never returns fails the test rather than hanging the run.
        let returned = CancelFlag()
        let called = Locked<ContinuousClock.Instant?>(nil)
        Task {
            called.withLock { $0 = .now }
            try await store.close()
            returned.set()
        }
        while !returned.isSet {
            if let called = called.withLock({ $0 }), ContinuousClock.now - called > .seconds(20) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(returned.isSet)
        #expect(store.health.state == .closed)
    }

    /// The moment `log`'s compaction lets go of the store, stamped on a thread of its
    /// own: a stop's way back to the test runs through a pool that other tests may hold
    /// for minutes. The closure returns it, waiting for it (nil after ten minutes).
    static func compactionEnd(of log: LogStore) -> @Sendable () -> ContinuousClock.Instant? {
        let stamp = Locked<ContinuousClock.Instant?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            log.compactionRunning.withLock { _ in }
            stamp.withLock { $0 = .now }
            done.signal()
        }
        return { done.wait(timeout: .now() + 600) == .success ? stamp.withLock { $0 } : nil }
    }

    /// A compaction under way does not hold a close for the rest of its pass: it stops
    /// with `.closed`, and the store reopens with everything in it.
    @Test(.timeLimit(.minutes(20)))
    func closeStopsACompactionUnderWay() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/store"
        let model = try ContextFixtures.company()
        let store = try await ObjectStore.open(at: path, model: model)
        let ids = try await store.write { context in try (0 ..< 400).map { try ContextFixtures.employee(context, "E\($0)").objectID } }
        // Every one written again: the first versions are garbage for the pass.
        try await store.write { context in for id in ids { try context.existingObject(with: id).setValue(2_000.0, forKey: "salary") } }
        // At sixteen bytes a second, the pass would take about an hour.
        let compaction = Task { try await store.compact(force: true, bytesPerSecond: 16) }
        try await Task.sleep(for: .milliseconds(200))
        let log = try #require(store.segmentLog)
        let closing = ContinuousClock.now
        let stopped = Self.compactionEnd(of: log)
        try await store.close()
        // A small part of the pass. The bound is loose because the compaction's thread
        // runs at a lower priority: on a machine busy with other tests it may wait
        // seconds for a core before it sees the stop.
        let stop = try #require(stopped())
        #expect(stop - closing < .seconds(120))
        await #expect { try await compaction.value } throws: { ($0 as? StrataError)?.code == .closed }
        let reopened = try await ObjectStore.open(at: path, model: model)
        #expect(try await reopened.read { try $0.count(for: FetchRequest(entityName: "Employee")) } == 400)
        #expect(try await reopened.read { _ in try reopened.verify().isSound })
        try await reopened.close()
    }

    /// A compaction whose task is cancelled stops soon, leaves the store sound and
    /// open, and does not stop the next compaction (as a close's stop would).
    @Test func cancellingACompactionsTaskStopsItAndNotTheNext() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/store"
        let model = try ContextFixtures.company()
        let store = try await ObjectStore.open(at: path, model: model)
        let ids = try await store.write { context in try (0 ..< 400).map { try ContextFixtures.employee(context, "E\($0)").objectID } }
        try await store.write { context in for id in ids { try context.existingObject(with: id).setValue(2_000.0, forKey: "salary") } }
        // About an hour's pass at this rate.
        let compaction = Task { try await store.compact(force: true, bytesPerSecond: 16) }
        try await Task.sleep(for: .milliseconds(200))
        let log = try #require(store.segmentLog)
        let cancelled = ContinuousClock.now
        let stopped = Self.compactionEnd(of: log)
        compaction.cancel()
        await #expect(throws: CancellationError.self) { try await compaction.value }
        // Loose for the same reason as a close's stop.
        let stop = try #require(stopped())
        #expect(stop - cancelled < .seconds(120))
        #expect(store.health.state == .open)
        #expect(try await store.read { try $0.count(for: FetchRequest(entityName: "Employee")) } == 400)
        let report = try await store.compact(force: true)
        #expect(report.segmentsCompacted > 0)
        #expect(store.records.usage.garbageRatio < 0.1)
        #expect(try await store.read { _ in try store.verify().isSound })
        try await store.close()
    }

    @Test func closedWorkSurvivesReopen() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/store"
        let model = try ContextFixtures.company()
        let store = try await ObjectStore.open(at: path, model: model)
        let ids = try await withThrowingTaskGroup(of: ObjectID.self) { group in
            for i in 0 ..< 32 {
                group.addTask { try await store.write { try ContextFixtures.employee($0, "E\(i)").objectID } }
            }
            return try await group.reduce(into: [ObjectID]()) { $0.append($1) }
        }
        try await store.close()
        let reopened = try await ObjectStore.open(at: path, model: model)
        let names = try await reopened.read { context in try ids.map { try context.existingObject(with: $0).string("name") } }
        #expect(Set(names.compactMap { $0 }) == Set((0 ..< 32).map { "E\($0)" }))
        try await reopened.close()
    }

    @Test func healthReportsReadOnlyAfterAFailedFsync() async throws {
        let faults = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        var options = StoreOptions()
        options.fileSystem = faults
        let store = try ObjectStore(at: "/store", model: try ContextFixtures.company(), options: options)
        #expect(store.health == StoreHealth(state: .open, pendingWrites: 0))
        faults.inject(.fail(.sync, errno: EIO, matching: "segments/", on: .always))
        await #expect { try await store.write { _ = try ContextFixtures.employee($0, "Ada") } } throws: { ($0 as? StrataError)?.code == .io }
        guard case .readOnly = store.health.state else {
            Issue.record("expected read-only, got \(store.health)")
            return
        }
        #expect(!store.health.isWritable)
    }

    @Test func objectIDsFromSerials() async throws {
        let store = try Self.store()
        let id = try await store.write { try ContextFixtures.employee($0, "Ada").objectID }
        #expect(store.objectID(entityName: "Employee", serial: id.serial) == id)
        #expect(store.objectID(entityName: "Nobody", serial: 1) == nil)
        #expect(store.objectID(entityName: "Employee", serial: 0) == nil)
        #expect(store.objectID(entityName: "Employee", serial: UInt64.max) == nil)
        let missing = try #require(store.objectID(entityName: "Employee", serial: 999))
        await #expect { try await store.read { _ = try $0.existingObject(with: missing) } } throws: { ($0 as? StrataError)?.code == .objectNotFound }
    }

    @Test func concurrentWritesShareFsyncs() async throws {
        var options = StoreOptions()
        options.fileSystem = SlowSyncFileSystem(wrapping: InMemoryFileSystem(), delay: .milliseconds(4))
        let store = try ObjectStore(at: "/store", model: try ContextFixtures.company(), options: options)
        store.resetStatistics()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0 ..< 64 {
                group.addTask { try await store.write { _ = try ContextFixtures.employee($0, "E\(i)") } }
            }
            try await group.waitForAll()
        }
        let statistics = store.statistics
        #expect(statistics.commits == 64)
        #expect(statistics.syncs < 32, "\(statistics.syncs) fsyncs for 64 writes")
    }

    /// Saves one employee per name, each in a transaction of its own; their sequences.
    static func saveEmployees(_ names: [String], in store: ObjectStore) throws -> [UInt64] {
        try names.map { name in
            let context = store.newContext()
            _ = try ContextFixtures.employee(context, name)
            try context.save()
            return store.records.lastSequence
        }
    }

    @Test func aConsumerThatFallsBehindLearnsWhatItMissed() async throws {
        var options = StoreOptions()
        options.changeBufferLimit = 2
        let store = try Self.store(options)
        var changes = store.changes().makeAsyncIterator()
        let sequences = try Self.saveEmployees((0 ..< 6).map { "E\($0)" }, in: store)
        let first = try #require(await changes.next())
        let second = try #require(await changes.next())
        #expect([first.sequence, second.sequence] == Array(sequences[0 ..< 2]))
        #expect(first.missed == nil && second.missed == nil)
        // Caught up, with no later commit to carry them: the four dropped come alone.
        let notice = try #require(await changes.next())
        #expect(notice.missed == sequences[2] ... sequences[5])
        #expect(notice.sequence == sequences[5])
        #expect(notice.inserted.isEmpty && notice.updated.isEmpty && notice.deleted.isEmpty)
        let last = try Self.saveEmployees(["Last"], in: store)
        let next = try #require(await changes.next())
        #expect(next.sequence == last[0])
        #expect(next.missed == nil)
    }

    @Test func aConsumerBehindLearnsWhatItMissedFromTheNextChangeSetBuffered() async throws {
        var options = StoreOptions()
        options.changeBufferLimit = 2
        let store = try Self.store(options)
        var changes = store.changes().makeAsyncIterator()
        var sequences = try Self.saveEmployees((0 ..< 5).map { "E\($0)" }, in: store)
        // One taken makes room for one: the next commit carries the three dropped.
        #expect(try #require(await changes.next()).sequence == sequences[0])
        sequences += try Self.saveEmployees(["Later"], in: store)
        #expect(try #require(await changes.next()).missed == nil)
        let carrier = try #require(await changes.next())
        #expect(carrier.sequence == sequences[5])
        #expect(carrier.missed == sequences[2] ... sequences[4])
        #expect(!carrier.inserted.isEmpty)
    }

    @Test func changeSetsDroppedBeforeCloseAreReportedBeforeTheStreamEnds() async throws {
        var options = StoreOptions()
        options.changeBufferLimit = 3
        let store = try Self.store(options)
        var changes = store.changes().makeAsyncIterator()
        let sequences = try Self.saveEmployees((0 ..< 7).map { "E\($0)" }, in: store)
        try await store.close()
        var delivered: [ChangeSet] = []
        while let change = await changes.next() { delivered.append(change) }
        #expect(delivered.map(\.sequence) == Array(sequences[0 ..< 3]) + [sequences[6]])
        #expect(delivered.last?.missed == sequences[3] ... sequences[6])
    }
}

/// `fetchObjectIDs(entityName:after:limit:)`: keyset pages of one entity's ids.
@Suite struct ObjectIDPageTests {
    @Test func pagesWalkTheEntityInIDOrderSkippingDeletes() throws {
        let store = try ObjectStore.inMemory(model: try ContextFixtures.company())
        let context = store.newContext()
        let employees = try (0 ..< 25).map { try ContextFixtures.employee(context, "E\($0)") }
        _ = try ContextFixtures.department(context, "Sales")
        try context.save()
        try context.delete(employees[3])
        try context.delete(employees[10])
        try context.save()
        var pages: [[ObjectID]] = []
        var after: ObjectID?
        repeat {
            let page = try context.fetchObjectIDs(entityName: "Employee", after: after, limit: 7)
            if page.isEmpty { break }
            pages.append(page)
            after = page.last
        } while true
        let expected = employees.enumerated().filter { ![3, 10].contains($0.offset) }.map { $0.element.objectID }
        #expect(pages.flatMap { $0 } == expected)
        #expect(pages.map(\.count) == [7, 7, 7, 2])
        #expect(try context.fetchObjectIDs(entityName: "Employee", limit: 0).isEmpty)
        #expect(throws: StrataError.self) { try context.fetchObjectIDs(entityName: "Nobody", limit: 5) }
        #expect(throws: StrataError.self) { try context.fetchObjectIDs(entityName: "Department", after: expected[0], limit: 5) }
        #expect(throws: StrataError.self) { try context.fetchObjectIDs(entityName: "Employee", limit: -1) }
    }
}
