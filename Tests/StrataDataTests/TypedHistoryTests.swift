import Foundation
import StrataData
import Testing

@Model final class Trip {
    @Attribute(.preserveValueOnDeletion) var name: String
    var destination: String
    var days: Int = 1
    init(name: String, destination: String) { self.name = name; self.destination = destination }
}

/// SwiftData's history API as written there: an author on the context,
/// `HistoryDescriptor<DefaultHistoryTransaction>` with a token predicate, typed
/// inserts, updates and deletes with tombstones, deleteHistory, and snapshots.
@Suite struct TypedHistoryTests {
    static func container() throws -> (ModelContainer, ModelContext) {
        var options = StoreOptions()
        options.historyTracking = true
        let container = try ModelContainer(for: try Schema([Trip.self]), configurations: [ModelConfiguration(isStoredInMemoryOnly: true, options: options)])
        return (container, ModelContext(container))
    }

    @Test func historyReadsAsSwiftDataWritesIt() throws {
        let (container, context) = try Self.container()
        context.author = "planner"
        let start = container.store.currentHistoryToken
        let trip = Trip(name: "Rome", destination: "Italy")
        context.insert(trip)
        try context.save()
        let afterInsert = container.store.currentHistoryToken
        trip.days = 4
        try context.save()
        context.delete(trip)
        try context.save()

        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > start }))
        #expect(all.count == 3)
        #expect(all.allSatisfy { $0.author == "planner" })
        guard case .insert(let insert as DefaultHistoryInsert<Trip>) = all[0].changes.first else { Issue.record("not an insert of a Trip"); return }
        #expect(insert.changedPersistentIdentifier == trip.persistentModelID)
        guard case .update(let update as DefaultHistoryUpdate<Trip>) = all[1].changes.first else { Issue.record("not an update of a Trip"); return }
        #expect(update.updatedAttributes == [\Trip.days])
        guard case .delete(let delete as DefaultHistoryDelete<Trip>) = all[2].changes.first else { Issue.record("not a delete of a Trip"); return }
        #expect(delete.tombstone[\.name] == "Rome")
        #expect(delete.tombstone[\.destination] == nil)

        let later = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > afterInsert }))
        #expect(later.map(\.token) == Array(all.dropFirst().map(\.token)))
        // A predicate on anything else is judged transaction by transaction.
        let byAuthor = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "nobody" }))
        #expect(byAuthor.isEmpty)

        // Delete the oldest: what follows stays; a selection with a gap is refused.
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= afterInsert }))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
        // The token predicate reads from the token: an expired one is said to be.
        #expect { try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > start })) }
            throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        let last = all[2].token
        #expect { try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token == last })) }
            throws: { ($0 as? StrataError)?.code == .invalidArgument }
        // No predicate: every transaction, the last one included.
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
    }

    @Test func aSnapshotContainerReadsOneState() throws {
        let (container, context) = try Self.container()
        for i in 0..<5 { context.insert(Trip(name: "t\(i)", destination: "d")) }
        try context.save()
        let snapshot = try container.snapshot()
        defer { try? snapshot.close() }
        for i in 5..<9 { context.insert(Trip(name: "t\(i)", destination: "d")) }
        try context.save()
        #expect(try ModelContext(snapshot).fetchCount(FetchDescriptor<Trip>()) == 5)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 9)
    }

    /// A container as of each past transaction a history fetch hands out: the trips as
    /// they were right after it, changed and deleted ones included.
    @Test func aContainerAsOfATransactionReadsTheModelsThen() throws {
        let (container, context) = try Self.container()
        let rome = Trip(name: "Rome", destination: "Italy")
        context.insert(rome)
        context.insert(Trip(name: "Oslo", destination: "Norway"))
        try context.save()
        rome.days = 5
        try context.save()
        context.delete(rome)
        try context.save()
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.count == 3)
        var seen: [[String: Int]] = []
        for transaction in transactions {
            let then = try container.snapshot(at: transaction.token)
            defer { try? then.close() }
            let trips = try ModelContext(then).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            seen.append(Dictionary(uniqueKeysWithValues: trips.map { ($0.name, $0.days) }))
        }
        #expect(seen == [["Oslo": 1, "Rome": 1], ["Oslo": 1, "Rome": 5], ["Oslo": 1]])
        // Before the history kept, and of another store: refused.
        let second = transactions[1].token
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= second }))
        #expect { try container.snapshot(at: transactions[0].token) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        let (other, _) = try Self.container()
        #expect { try other.snapshot(at: transactions[2].token) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
    }
}
