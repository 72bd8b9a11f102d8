import Foundation
@testable import Strata
import StrataLog
import StrataTestSupport
import Testing

/// `ObjectStore.snapshot()` reads one state while commits and compaction go on;
/// `changes(after:)` delivers every transaction once, in order, to a consumer that
/// stalls, and says so when it cannot resume.
@Suite struct SnapshotAndFeedTests {
    static func names(_ store: ObjectStore) throws -> [String] {
        let request = FetchRequest(entityName: "Employee", sortKeys: [SortKey("name")])
        return try store.newContext().fetch(request).map { try $0.string("name") ?? "" }
    }

    @Test func snapshotFetchesStayTheSameAcrossCommitsAndACompaction() async throws {
        var options = StoreOptions()
        options.log.overlayEntryLimit = 256
        options.log.compactionGarbageRatio = 0.01
        let store = try ObjectStore.inMemory(model: try HistoryTests.model(), options: options)
        let context = store.newContext()
        var employees: [ManagedObject] = []
        for i in 0..<300 { employees.append(try HistoryTests.insert(context, "e\(1000 + i)", salary: Double(i))) }
        try context.save()
        let snapshot = try store.snapshot()
        defer { try? snapshot.close() }
        let expected = try Self.names(snapshot)
        let expectedCount = try snapshot.newContext().count(for: FetchRequest(entityName: "Employee"))
        let rich = try snapshot.newContext().fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "salary >= 150"))).count
        // 10k commits that rename, insert and delete, made while the snapshot is read,
        // then a compaction.
        let ids = employees.map(\.objectID)
        let committing = Task.detached {
            let context = store.newContext()
            for round in 0..<10_000 {
                let employee = try context.existingObject(with: ids[round % 250])
                try employee.setValue("r\(round)", forKey: "name")
                if round % 10 == 0 { _ = try HistoryTests.insert(context, "new\(round)") }
                try context.save()
            }
            for id in ids.suffix(50) { try context.delete(try context.existingObject(with: id)) }
            try context.save()
        }
        var reads = 0
        while !committing.isCancelled {
            #expect(try Self.names(snapshot) == expected)
            reads += 1
            if reads >= 3 { break }
        }
        try await committing.value
        _ = try await store.compact(force: true)
        #expect(try Self.names(snapshot) == expected)
        #expect(try snapshot.newContext().count(for: FetchRequest(entityName: "Employee")) == expectedCount)
        #expect(try snapshot.newContext().fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "salary >= 150"))).count == rich)
        #expect(try Self.names(store) != expected)
        // Its contexts do not save.
        let writer = snapshot.newContext()
        _ = try HistoryTests.insert(writer, "nope")
        #expect { try writer.save() } throws: { ($0 as? StrataError)?.code == .readOnly }
    }

    @Test func theFeedDeliversEveryTransactionOnceToAConsumerThatStalls() async throws {
        let store = try HistoryTests.store()
        let start = store.currentHistoryToken
        var feed = store.changes(after: start).makeAsyncIterator()
        // The consumer takes one, then stalls while many commits land.
        let context = store.newContext()
        _ = try HistoryTests.insert(context, "first")
        try context.save()
        let first = try await feed.next()
        #expect(first?.token == store.currentHistoryToken)
        var expected: [HistoryToken] = []
        for i in 0..<2_000 {
            _ = try HistoryTests.insert(context, "e\(i)")
            try context.save()
            expected.append(store.currentHistoryToken)
        }
        var delivered: [HistoryToken] = []
        while delivered.count < expected.count, let next = try await feed.next() { delivered.append(next.token) }
        #expect(delivered == expected)
        // Then it waits for the next commit, and wakes with it.
        let waiter = Task {
            var feed = store.changes(after: expected.last!).makeAsyncIterator()
            return try await feed.next()?.changes.count
        }
        try await Task.sleep(for: .milliseconds(20))
        _ = try HistoryTests.insert(context, "late")
        try context.save()
        #expect(try await waiter.value == 1)
        try await store.close()
        #expect(try await feed.next() == nil)
    }

    @Test func withoutHistoryTheFeedSaysItCannotResume() async throws {
        let store = try HistoryTests.store { $0.historyTracking = false }
        var feed = store.changes(after: store.currentHistoryToken).makeAsyncIterator()
        await #expect { _ = try await feed.next() } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
    }
}
