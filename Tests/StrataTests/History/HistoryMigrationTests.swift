import Foundation
@testable import Strata
import StrataLog
import StrataTestSupport
import Testing

/// A migration restarts history: it may rewrite every object, so it leaves one entry
/// naming none, and every token from before it but the last expires — in place or
/// through a staging store, whose sequences go on from the store's, so that no old
/// token can ever name a later transaction.
@Suite struct HistoryMigrationTests {
    /// An entity whose `level` is an Int32, then `to`: Int64 widens in place, Double
    /// is inferred but rewrites the store through a staging store.
    static func model(level: AttributeType, version: String) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("level", level, default: level == .double ? .double(1) : .int(1))
            }
        }
    }

    @Test(arguments: [AttributeType.int64, .double])
    func everyTokenFromBeforeAMigrationExpires(level: AttributeType) throws {
        let directory = try TemporaryDirectory("history-migration")
        defer { directory.remove() }
        let path = directory.appending("store")
        var options = StoreOptions()
        options.historyTracking = true
        var tokens: [HistoryToken] = []
        var last: UInt64 = 0
        do {
            let store = try ObjectStore(at: path, model: try Self.model(level: .int32, version: "1"), options: options)
            let context = store.newContext()
            for i in 0..<20 {
                let employee = try context.insert("Employee")
                try employee.setValue("e\(i)", forKey: "name")
                try context.save()
                tokens.append(store.currentHistoryToken)
            }
            last = store.records.lastSequence
            try store.close()
        }
        options.migration = .inferred
        let store = try ObjectStore(at: path, model: try Self.model(level: level, version: "2"), options: options)
        defer { try? store.close() }
        // Sequences never go back, whichever way the store was migrated.
        #expect(store.records.lastSequence > last)
        // The migration leaves one entry naming no object: a consumer that had read
        // everything before it reads it next; one further behind is told it cannot resume.
        for token in tokens.dropLast() {
            #expect { try store.fetchHistory(after: token) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        }
        let migration = try store.fetchHistory(after: try #require(tokens.last))
        #expect(migration.count == 1)
        #expect(migration.first?.author == ObjectStore.migrationAuthor)
        #expect(migration.first?.changes.isEmpty == true)
        #expect(migration.first?.token == store.currentHistoryToken)
        let fresh = store.currentHistoryToken
        let context = store.newContext()
        for i in 0..<30 {
            let employee = try context.insert("Employee")
            try employee.setValue("n\(i)", forKey: "name")
            try context.save()
        }
        // Later commits pass the old tokens' numbers: the old tokens still expire.
        for token in tokens.dropLast() {
            #expect { try store.fetchHistory(after: token) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        }
        #expect(try store.fetchHistory(after: fresh).count == 30)
        #expect(try store.verify().isSound)
    }
}
