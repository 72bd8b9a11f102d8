import Foundation
@testable import Strata
import StrataLog
import StrataTestSupport
import Testing

/// Persistent history: one entry per commit in the same transaction, read back in
/// order after any token, deleted before a token or past the retention, and nothing
/// at all with tracking off.
@Suite struct HistoryTests {
    /// Departments and employees whose name and email are kept on deletion; with
    /// `level`, version 2: one more attribute, which a store migrates to in place.
    static func model(level: Bool = false) throws -> ObjectModel {
        try ObjectModel(version: level ? "2" : "1") {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .nullify)
            }
            Entity("Employee") {
                Attribute("name", .string).preservesValueOnDeletion()
                Attribute("salary", .double, default: .double(0))
                Attribute("email", .string, optional: true).preservesValueOnDeletion()
                if level { Attribute("level", .int64, default: .int(1)) }
                Relationship("department", to: "Department", inverse: "employees", optional: true)
            }
        }
    }

    static func store(_ configure: (inout StoreOptions) -> Void = { _ in }) throws -> ObjectStore {
        var options = StoreOptions()
        options.historyTracking = true
        configure(&options)
        return try ObjectStore.inMemory(model: try model(), options: options)
    }

    static func insert(_ context: ObjectContext, _ name: String, salary: Double = 1) throws -> ManagedObject {
        let employee = try context.insert("Employee")
        try employee.setValue(name, forKey: "name")
        try employee.setValue(salary, forKey: "salary")
        return employee
    }

    @Test func eachSaveWritesOneEntryWithWhoAndWhat() throws {
        let store = try Self.store()
        let start = store.currentHistoryToken
        let context = store.newContext()
        context.transactionAuthor = "importer"
        context.name = "batch-7"
        let ada = try Self.insert(context, "Ada")
        try ada.setValue("ada@example.com", forKey: "email")
        let bob = try Self.insert(context, "Bob")
        try context.save()
        try ada.setValue(Double(2), forKey: "salary")
        try context.save()
        try context.delete(bob)
        try context.save()

        let history = try store.fetchHistory(after: start)
        #expect(history.count == 3)
        #expect(history.map(\.token.sequence) == history.map(\.token.sequence).sorted())
        #expect(history.allSatisfy { $0.author == "importer" && $0.contextName == "batch-7" })
        #expect(Set(history[0].changes.map(\.changedObjectID)) == [ada.objectID, bob.objectID])
        #expect(history[0].changes.allSatisfy { $0.changeType == .insert && $0.tombstone == nil })
        #expect(history[1].changes == [HistoryTransaction.Change(changeType: .update, changedObjectID: ada.objectID, updatedAttributes: ["salary"])])
        #expect(history[2].changes == [HistoryTransaction.Change(changeType: .delete, changedObjectID: bob.objectID, tombstone: ["name": .string("Bob"), "email": .null])])
        // The last entry's token is the store's last commit.
        #expect(history.last?.token == store.currentHistoryToken)
    }

    @Test func membershipChangesAreUpdatesOfBothEnds() throws {
        let store = try Self.store()
        let context = store.newContext()
        let sales = try context.insert("Department")
        try sales.setValue("Sales", forKey: "name")
        let ada = try Self.insert(context, "Ada")
        try context.save()
        let token = store.currentHistoryToken
        try ada.setObject(sales, forKey: "department")
        try context.save()
        let changes = try #require(try store.fetchHistory(after: token).first).changes
        #expect(changes == [
            HistoryTransaction.Change(changeType: .update, changedObjectID: sales.objectID, updatedAttributes: ["employees"]),
            HistoryTransaction.Change(changeType: .update, changedObjectID: ada.objectID, updatedAttributes: ["department"]),
        ])
        // An insert joining the department and a delete leaving it update it too.
        let joined = store.currentHistoryToken
        let bob = try Self.insert(context, "Bob")
        try bob.setObject(sales, forKey: "department")
        try context.save()
        let left = store.currentHistoryToken
        try context.delete(ada)
        try context.save()
        let joins = try #require(try store.fetchHistory(after: joined).first).changes
        #expect(joins.contains(HistoryTransaction.Change(changeType: .update, changedObjectID: sales.objectID, updatedAttributes: ["employees"])))
        #expect(joins.contains { $0.changeType == .insert && $0.changedObjectID == bob.objectID })
        let leaves = try #require(try store.fetchHistory(after: left).first).changes
        #expect(leaves.contains(HistoryTransaction.Change(changeType: .update, changedObjectID: sales.objectID, updatedAttributes: ["employees"])))
    }

    @Test func batchOperationsWriteOneEntryEach() throws {
        let store = try Self.store()
        let token = store.currentHistoryToken
        let ids = try store.batchInsert(entityName: "Employee", objects: (0..<50).map { ["name": .string("e\($0)"), "salary": .double(Double($0))] })
        let removed = try store.batchDelete(entityName: "Employee", predicate: try Predicate(format: "salary < 10"))
        #expect(removed == 10)
        let history = try store.fetchHistory(after: token)
        #expect(history.count == 2)
        #expect(history[0].changes.map(\.changedObjectID) == ids)
        #expect(history[0].changes.allSatisfy { $0.changeType == .insert })
        #expect(history[1].changes.count == 10)
        #expect(history[1].changes.allSatisfy { $0.changeType == .delete })
        #expect(history[1].changes.first?.tombstone?["name"] == .string("e0"))
    }

    @Test func pagesFollowTheTokenAndTokensRoundTrip() throws {
        let store = try Self.store()
        let context = store.newContext()
        let token = store.currentHistoryToken
        for i in 0..<25 {
            _ = try Self.insert(context, "e\(i)")
            try context.save()
        }
        var seen: [HistoryTransaction] = []
        var cursor = token
        while true {
            let page = try store.fetchHistory(after: cursor, limit: 7)
            guard let last = page.last else { break }
            seen += page
            // A consumer keeps its place as JSON.
            cursor = try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(last.token))
        }
        #expect(seen.count == 25)
        #expect(seen == (try store.fetchHistory(after: token)))
        #expect(try store.fetchHistory(after: store.currentHistoryToken).isEmpty)
    }

    @Test func tokensOfAnotherStoreOrTheFutureAreRefused() throws {
        let store = try Self.store()
        let other = try Self.store()
        #expect { try store.fetchHistory(after: other.currentHistoryToken) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        let future = HistoryToken(sequence: store.currentHistoryToken.sequence + 5, storeIdentifier: store.identifier)
        #expect { try store.fetchHistory(after: future) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        // Nor does a token from the future delete the history up to the last commit.
        let context = store.newContext()
        _ = try Self.insert(context, "Ada")
        try context.save()
        let before = try store.fetchHistory()
        #expect { try store.deleteHistory(before: future) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        #expect { try store.deleteHistory(before: other.currentHistoryToken) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        #expect(try store.fetchHistory() == before)
        #expect(before.count == 1)
    }

    @Test func deleteHistoryExpiresOlderTokensAndKeepsTheGivenOne() throws {
        let store = try Self.store()
        let context = store.newContext()
        let first = store.currentHistoryToken
        var tokens: [HistoryToken] = []
        for i in 0..<10 {
            _ = try Self.insert(context, "e\(i)")
            try context.save()
            tokens.append(store.currentHistoryToken)
        }
        try store.deleteHistory(before: tokens[5])
        // The transaction of tokens[5] and what follows are kept; so the token before it is good.
        #expect(try store.fetchHistory(after: tokens[4]).map(\.token) == Array(tokens[5...]))
        #expect(try store.fetchHistory(after: tokens[5]).map(\.token) == Array(tokens[6...]))
        #expect { try store.fetchHistory(after: tokens[3]) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        #expect { try store.fetchHistory(after: first) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        #expect(try store.historyHorizon() == tokens[4])
        // Nil: from the oldest kept.
        #expect(try store.fetchHistory().map(\.token) == Array(tokens[5...]))
    }

    @Test func withTrackingOffNothingIsWrittenAndReadsSaySo() throws {
        let store = try Self.store { $0.historyTracking = false }
        let context = store.newContext()
        _ = try Self.insert(context, "Ada")
        try context.save()
        #expect(try store.records.keys(in: HistoryLog.stateKey..<RecordKey(UInt64.max)).isEmpty)
        #expect { try store.fetchHistory(after: store.currentHistoryToken) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        #expect { try store.fetchHistory() } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
    }

    @Test func turningTrackingOffAndOnExpiresEveryEarlierToken() throws {
        let directory = try TemporaryDirectory("history")
        defer { directory.remove() }
        let path = directory.appending("store")
        var on = StoreOptions()
        on.historyTracking = true
        var off = on
        off.historyTracking = false
        var token: HistoryToken
        do {
            let store = try ObjectStore(at: path, model: try Self.model(), options: on)
            let context = store.newContext()
            token = store.currentHistoryToken
            _ = try Self.insert(context, "Ada")
            try context.save()
            #expect(try store.fetchHistory(after: token).count == 1)
            try store.close()
        }
        do {
            let store = try ObjectStore(at: path, model: try Self.model(), options: off)
            let context = store.newContext()
            _ = try Self.insert(context, "Bob")
            try context.save()
            #expect(try store.records.keys(in: HistoryLog.entries).isEmpty)
            try store.close()
        }
        let store = try ObjectStore(at: path, model: try Self.model(), options: on)
        defer { try? store.close() }
        // Bob's commit has no entry: a token from before it can never be answered.
        #expect { try store.fetchHistory(after: token) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        let fresh = store.currentHistoryToken
        let context = store.newContext()
        _ = try Self.insert(context, "Cy")
        try context.save()
        #expect(try store.fetchHistory(after: fresh).count == 1)
    }

    @Test func retentionBoundsTheEntriesKept() async throws {
        let store = try Self.store { $0.historyRetention = HistoryRetention(maxTransactions: 10, maxAge: nil) }
        let context = store.newContext()
        for i in 0..<30 {
            _ = try Self.insert(context, "e\(i)")
            try context.save()
        }
        #expect(try store.records.count(in: HistoryLog.entries) == 30)
        _ = try await store.compact(force: true)
        #expect(try store.records.count(in: HistoryLog.entries) == 10)
        #expect(try store.fetchHistory().count == 10)
        let horizon = try #require(try store.historyHorizon())
        #expect(try store.fetchHistory(after: horizon).count == 10)
    }

    @Test func retentionByAgeDropsOldEntries() throws {
        let store = try Self.store { $0.historyRetention = HistoryRetention(maxTransactions: nil, maxAge: .seconds(3600)) }
        // An entry written an hour and a half ago, then a current one.
        var old = WriteBatch()
        old.put(HistoryEntry(timestamp: Date().addingTimeInterval(-5_400)).encoded(), keyedBySequenceAfter: HistoryLog.stateKey)
        try store.records.commit(old)
        let context = store.newContext()
        _ = try Self.insert(context, "Ada")
        try context.save()
        let current = store.currentHistoryToken
        #expect(try store.fetchHistory().count == 2)
        try store.trimHistory()
        let kept = try store.fetchHistory()
        #expect(kept.count == 1)
        #expect(kept.first?.token == current)
    }

    @Test func aBatchInsertFromAHandlerKeepsRunsOfKeysNotIds() throws {
        let store = try Self.store { $0.insertChunkSize = 1_000 }
        let token = store.currentHistoryToken
        var next = 0
        let count = try store.batchInsert(entityName: "Employee") { values in
            guard next < 5_000 else { return true }
            values = ["name": .string("e\(next)"), "salary": .double(Double(next))]
            next += 1
            return false
        }
        #expect(count == 5_000)
        let history = try store.fetchHistory(after: token)
        #expect(history.count == 1)
        let ids = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee"))
        #expect(history.first?.changes.map(\.changedObjectID) == ids)
        // One run of keys: the entry holds a few bytes, not one per object.
        let entry = try #require(try store.records.get(HistoryLog.key(history[0].token.sequence)))
        #expect(entry.value.count < 64)
    }

    @Test func aLargeContextSaveKeepsRunsOfInsertedKeys() throws {
        let store = try Self.store()
        let token = store.currentHistoryToken
        let context = store.newContext()
        var ids: [ObjectID] = []
        for i in 0..<5_000 { ids.append(try Self.insert(context, "e\(i)").objectID) }
        try context.save()
        let history = try store.fetchHistory(after: token)
        #expect(history.count == 1)
        #expect(history.first?.changes.map(\.changedObjectID) == ids)
        #expect(history.first?.changes.allSatisfy { $0.changeType == .insert } == true)
        let entry = try #require(try store.records.get(HistoryLog.key(history[0].token.sequence)))
        #expect(entry.value.count < 64)
    }

    @Test func aRunPastTheKeysHandedOutIsRefused() throws {
        let store = try Self.store()
        let context = store.newContext()
        let ada = try Self.insert(context, "Ada")
        try context.save()
        var entry = HistoryEntry(timestamp: Date())
        entry.changes = [.init(type: .insert, key: ada.objectID.key, count: 1_000_000_000)]
        var batch = WriteBatch()
        batch.put(entry.encoded(), keyedBySequenceAfter: HistoryLog.stateKey)
        let token = store.currentHistoryToken
        try store.records.commit(batch)
        #expect { try store.fetchHistory(after: token) } throws: { ($0 as? StrataError)?.code == .corrupt }
    }

    @Test func entriesRoundTripThroughTheirBytes() throws {
        var entry = HistoryEntry(timestamp: Date(timeIntervalSince1970: 1_700_000_000.123456), author: "a", contextName: nil)
        entry.changes = [
            .init(type: .insert, key: RecordKey(5 << 48 | 7)),
            .init(type: .update, key: RecordKey(5 << 48 | 9), updated: ["name", "salary"]),
            .init(type: .delete, key: RecordKey(3 << 48 | 1), tombstone: [("name", .string("x")), ("n", .int(-4))]),
            .init(type: .update, key: RecordKey(6 << 48 | 2), updated: ["name"]),
            .init(type: .insert, key: RecordKey(6 << 48 | 3), count: 40),
            .init(type: .insert, key: RecordKey(6 << 48 | 43)),
        ]
        let decoded = try HistoryEntry.decode(entry.encoded())
        #expect(decoded == entry)
        // Every cut of the bytes is refused, never trapped on.
        let bytes = entry.encoded()
        for cut in 0..<bytes.count {
            #expect { try HistoryEntry.decode(Array(bytes[..<cut])) } throws: { ($0 as? StrataError)?.code == .corrupt }
        }
    }
}
