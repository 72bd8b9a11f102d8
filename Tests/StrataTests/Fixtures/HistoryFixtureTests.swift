import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// `employees-history-v1`, committed from format 4 on (Fixtures/stores/README.md): a
/// store whose history was tracked through saves, batch operations, a deletion of its
/// oldest entries and a compaction. Every later release must answer the same history,
/// expire the same tokens, and go on writing it.
@Suite struct HistoryFixtureTests {
    static var folders: [String] {
        FixtureStore.formatFolders.filter { (FixtureStore.formatVersion(ofFolder: $0) ?? 0) >= 4 }
    }

    static func options(readOnly: Bool) -> StoreOptions {
        var options = StoreOptions()
        options.historyTracking = true
        options.historyRetention = .unbounded
        options.log.readOnly = readOnly
        options.log.createIfMissing = false
        options.logger = .quiet
        return options
    }

    /// The data file's lines: the history as the writer read it back, without times.
    static func expected(_ fixture: FixtureStore) throws -> [[String: Any]] {
        try String(contentsOfFile: fixture.dataPath, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    static func line(_ transaction: HistoryTransaction) -> [String: Any] {
        var object: [String: Any] = [
            "token": Int(transaction.token.sequence),
            "changes": transaction.changes.map { [$0.changeType.rawValue, $0.changedObjectID.entityName, Int($0.changedObjectID.serial), $0.updatedAttributes] as [Any] },
        ]
        if let author = transaction.author { object["author"] = author }
        if let name = transaction.contextName { object["context"] = name }
        return object
    }

    @Test(arguments: folders)
    func answersTheHistoryItWasWrittenWith(folder: String) throws {
        let fixture = FixtureStore(folder: folder, name: "employees-history-v1")
        let model = try ObjectModel(contentsOf: FixturePaths.model("Employees-v1.json"))
        let store = try ObjectStore(at: fixture.path, model: model, options: Self.options(readOnly: true))
        defer { try? store.close() }
        let history = try store.fetchHistory()
        let expected = try Self.expected(fixture)
        #expect(history.count == expected.count)
        for (transaction, line) in zip(history, expected) {
            #expect(NSDictionary(dictionary: Self.line(transaction)).isEqual(to: line.filter { $0.key != "state" }), "\(folder): transaction \(transaction.token.sequence)")
        }
        // The oldest entries were deleted: the tokens before the horizon are expired.
        let horizon = try #require(try store.historyHorizon())
        #expect(horizon.sequence > 1)
        #expect { try store.fetchHistory(after: HistoryToken(sequence: horizon.sequence - 1, storeIdentifier: store.identifier)) }
            throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        #expect(try store.verify().isSound)
    }

    /// From format 5 on, each line also holds the employees right after its transaction;
    /// the store, compacted since with the horizon where it is, reads as of each token so.
    @Test(arguments: folders.filter { (FixtureStore.formatVersion(ofFolder: $0) ?? 0) >= 5 })
    func readsAsOfEveryTokenItsHistoryHolds(folder: String) throws {
        let fixture = FixtureStore(folder: folder, name: "employees-history-v1")
        let model = try ObjectModel(contentsOf: FixturePaths.model("Employees-v1.json"))
        let store = try ObjectStore(at: fixture.path, model: model, options: Self.options(readOnly: true))
        defer { try? store.close() }
        var checked = 0
        for line in try Self.expected(fixture) {
            guard let state = line["state"] as? [[Any]], let token = line["token"] as? Int else { continue }
            let snapshot = try store.snapshot(at: HistoryToken(sequence: UInt64(token), storeIdentifier: store.identifier))
            defer { try? snapshot.close() }
            let context = snapshot.newContext()
            let got = try context.fetch(FetchRequest(entityName: "Employee")).map { employee -> [Any] in
                let department = try employee.object("department")?.string("name")
                return [try employee.string("name") ?? "", try employee.double("salary") ?? 0, department.map { $0 as Any } ?? NSNull()]
            }.sorted { ($0[0] as? String ?? "") < ($1[0] as? String ?? "") }
            #expect(NSArray(array: got).isEqual(to: state), "\(folder): as of \(token)")
            checked += 1
        }
        #expect(checked >= 5)
    }

    /// The employees of `store` but the newcomer the test adds.
    static func employees(before store: ObjectStore) throws -> Int {
        try store.newContext().count(for: FetchRequest(entityName: "Employee")) - 1
    }

    @Test(arguments: folders)
    func aCopyGoesOnWritingHistory(folder: String) throws {
        let fixture = FixtureStore(folder: folder, name: "employees-history-v1")
        let model = try ObjectModel(contentsOf: FixturePaths.model("Employees-v1.json"))
        try fixture.withCopy { path in
            let store = try ObjectStore(at: path, model: model, options: Self.options(readOnly: false))
            defer { try? store.close() }
            let before = try store.fetchHistory()
            let token = store.currentHistoryToken
            let oldest = try #require(before.first).token
            let context = store.newContext()
            context.transactionAuthor = "later"
            let employee = try context.insert("Employee")
            try employee.setValue("Newcomer", forKey: "name")
            try context.save()
            let after = try store.fetchHistory(after: token)
            #expect(after.count == 1)
            #expect(after.first?.author == "later")
            #expect(try store.fetchHistory().count == before.count + 1)
            // The write upgraded a format-4 copy: it reads as of its last sequence then
            // and on, not earlier (its older versions were not kept); a format-5 one
            // reads as of every token its history holds.
            let then = try store.snapshot(at: token)
            #expect(try then.newContext().count(for: FetchRequest(entityName: "Employee")) == (try Self.employees(before: store)))
            try then.close()
            if FixtureStore.formatVersion(ofFolder: folder) == 4 {
                #expect { try store.snapshot(at: oldest) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
            } else {
                try store.snapshot(at: oldest).close()
            }
        }
    }
}
