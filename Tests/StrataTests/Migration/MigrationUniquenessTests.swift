import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// A migration into a model with new indexes or uniqueness constraints builds the
/// index and checks the stored data, played end to end on stores in temporary
/// directories.
@Suite("Migration: uniqueness and indexes")
struct MigrationUniquenessTests {
    static func accounts(_ version: String, unique: Bool = false, indexed: Bool = false) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Account") {
                Attribute("email", .string, indexed: indexed, unique: unique)
                Attribute("credit", .int64, default: .int(0))
            }
        }
    }

    static func people(_ version: String, compound: Bool) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Person", uniquenessConstraints: compound ? [["firstName", "lastName"]] : []) {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
            }
        }
    }

    /// Seeds a store on `model`, then closes it; returns the ids in order.
    @discardableResult
    static func seed(_ path: String, _ model: ObjectModel, entity: String, _ rows: [[String: Value]]) throws -> [ObjectID] {
        let store = try ObjectStore(at: path, model: model)
        defer { try? store.close() }
        return try store.batchInsert(entityName: entity, objects: rows)
    }

    static func open(_ path: String, _ model: ObjectModel, _ migration: StoreMigration) throws -> ObjectStore {
        var options = StoreOptions()
        options.migration = migration
        options.migrationBatchSize = 2   // several batches even for a handful of objects
        return try ObjectStore(at: path, model: model, options: options)
    }

    static func emails(_ store: ObjectStore) throws -> [String] {
        let context = store.newContext()
        return try context.fetch(FetchRequest(entityName: "Account")).map { try $0.string("email") ?? "" }.sorted()
    }

    /// Duplicates present, a new `unique` fails the migration naming `Account.email`
    /// and the value; the store is unchanged.
    @Test func duplicatesFailTheMigrationAndLeaveTheStoreUnchanged() throws {
        let dir = try TemporaryDirectory("migrate-unique-dup")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        let v1 = try Self.accounts("1")
        let ids = try Self.seed(path, v1, entity: "Account", [
            ["email": .string("ann@example.com")], ["email": .string("bob@example.com")],
            ["email": .string("cy@example.com")], ["email": .string("ann@example.com")],
        ])
        let before = try StoreContents(path)
        let v2 = try Self.accounts("2", unique: true)
        let error = #expect(throws: StrataError.self) { try Self.open(path, v2, .inferred) }
        #expect(error?.code == .uniquenessViolation)
        #expect(error?.context["entity"] == "Account")
        #expect(error?.context["properties"] == "email")
        #expect(error?.context["property"] == "email")
        #expect(error?.context["value"] == "\"ann@example.com\"")
        #expect(error?.context["objects"] == "\(ids[0])\n\(ids[3])")
        #expect(error?.message.contains("Account.email") == true)
        #expect(try StoreContents(path) == before)
        // Still the old store, with its four objects.
        let store = try ObjectStore(at: path, model: v1)
        defer { try? store.close() }
        #expect(try Self.emails(store).count == 4)
    }

    @Test func canonicallyEquivalentStringsAreDuplicatesInAMigration() throws {
        let dir = try TemporaryDirectory("migrate-unique-nfc")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        try Self.seed(path, try Self.accounts("1"), entity: "Account", [
            ["email": .string("caf\u{E9}@example.com")], ["email": .string("x@example.com")],
            ["email": .string("cafe\u{301}@example.com")],
        ])
        let before = try StoreContents(path)
        let error = #expect(throws: StrataError.self) { try Self.open(path, try Self.accounts("2", unique: true), .inferred) }
        #expect(error?.code == .uniquenessViolation)
        #expect(error?.context["properties"] == "email")
        #expect(try StoreContents(path) == before)
    }

    @Test func withoutDuplicatesTheStoreMigratesAndTheConstraintHoldsAfter() throws {
        let dir = try TemporaryDirectory("migrate-unique-ok")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        let prefix = String(repeating: "p", count: 1_500)
        let rows: [[String: Value]] = ["a@x", "b@x", "c@x", prefix + "1", prefix + "2"].map { ["email": .string($0)] }
        let ids = try Self.seed(path, try Self.accounts("1"), entity: "Account", rows)
        let v2 = try Self.accounts("2", unique: true)
        do {
            let store = try Self.open(path, v2, .inferred)
            try store.close()
        }
        let store = try ObjectStore(at: path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        for (id, row) in zip(ids, rows) {
            #expect(try context.object(with: id).value(forKey: "email") == row["email"])
        }
        let twin = try context.insert("Account")
        try twin.setValue("b@x", forKey: "email")
        #expect(throws: StrataError.self) { try context.save() }
    }

    /// SwiftData's documented pattern for adding `@Attribute(.unique)`: a custom stage
    /// whose `willMigrate` removes the duplicates, then the constraint. The two
    /// versions differ only by the constraint: the plan lists them as two stages.
    @Test func aStagedPlanThatRemovesDuplicatesFirstPasses() throws {
        let dir = try TemporaryDirectory("migrate-unique-plan")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        let v1 = try Self.accounts("1")
        let v2 = try Self.accounts("2", unique: true)
        #expect(v1.versionHash != v2.versionHash)
        let ids = try Self.seed(path, v1, entity: "Account", [
            ["email": .string("ann@x"), "credit": .int(1)], ["email": .string("bob@x"), "credit": .int(2)],
            ["email": .string("ann@x"), "credit": .int(3)], ["email": .string("bob@x"), "credit": .int(4)],
            ["email": .string("cy@x"), "credit": .int(5)],
        ])
        let plan = MigrationPlan(models: [v1, v2], stages: [
            .custom(from: v1, to: v2, willMigrate: { old in
                var seen = Set<String>()
                for account in try old.fetch(FetchRequest(entityName: "Account", sortKeys: [SortKey("credit")])) {
                    if !seen.insert(try account.string("email") ?? "").inserted { try old.delete(account) }
                }
                try old.save()
                return MigrationCarry()
            }, didMigrate: nil),
        ])
        try plan.validate()
        do {
            let store = try Self.open(path, v2, .plan(plan))
            try store.close()
        }
        let store = try ObjectStore(at: path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        #expect(try Self.emails(store) == ["ann@x", "bob@x", "cy@x"])
        for (index, id) in ids.enumerated() {
            let kept = [0, 1, 4].contains(index)
            let exists = (try? context.existingObject(with: id)) != nil
            #expect(exists == kept, "\(id)")
        }
    }

    @Test func aNewIndexIsBuiltAndARemovedOneWritesNoTerms() throws {
        let dir = try TemporaryDirectory("migrate-index")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        let rows: [[String: Value]] = (0..<7).map { ["email": .string("u\($0)@x"), "credit": .int(Int64($0))] }
        let ids = try Self.seed(path, try Self.accounts("1"), entity: "Account", rows)
        let v2 = try Self.accounts("2", indexed: true)
        do {
            let store = try Self.open(path, v2, .inferred)
            let index = try #require(try store.schema.layout("Account").fields[0].termIndex)
            for (id, row) in zip(ids, rows) {
                guard case .string(let email)? = row["email"] else { continue }
                // Each object is found through the index under its value…
                #expect(try store.records.keys(for: IndexTerm(index: index, value: Array(email.utf8))) == [id.key])
                #expect(try store.records.get(id.key)?.terms.count == 1)
            }
            // …and a fetch through it answers.
            let found = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Account", predicate: try Strata.Predicate(format: "email == %@", "u3@x")))
            #expect(found == [ids[3]])
            try store.close()
        }
        let v3 = try Self.accounts("3")
        let store = try Self.open(path, v3, .inferred)
        defer { try? store.close() }
        for id in ids {
            #expect(try store.records.get(id.key)?.terms.isEmpty == true)
        }
        #expect(try Self.emails(store).count == 7)
    }

    @Test func aNewCompoundConstraintChecksTheStoredPairs() throws {
        let dir = try TemporaryDirectory("migrate-compound")
        defer { dir.remove() }
        let path = dir.appending("People.strata")
        let v1 = try Self.people("1", compound: false)
        let ids = try Self.seed(path, v1, entity: "Person", [
            ["firstName": .string("Ann"), "lastName": .string("Lee")],
            ["firstName": .string("Ann"), "lastName": .string("Kim")],
            ["firstName": .string("Bob"), "lastName": .string("Lee")],
            ["firstName": .string("Ann"), "lastName": .string("Lee")],
        ])
        let before = try StoreContents(path)
        let v2 = try Self.people("2", compound: true)
        let error = #expect(throws: StrataError.self) { try Self.open(path, v2, .inferred) }
        #expect(error?.code == .uniquenessViolation)
        #expect(error?.context["entity"] == "Person")
        #expect(error?.context["properties"] == "firstName,lastName")
        #expect(error?.context["value"] == "(\"Ann\", \"Lee\")")
        #expect(error?.context["objects"] == "\(ids[0])\n\(ids[3])")
        #expect(try StoreContents(path) == before)

        // Without the duplicate pair the store migrates, and the pair is enforced after.
        do {
            let store = try ObjectStore(at: path, model: v1)
            let context = store.newContext()
            try context.delete(try context.object(with: ids[3]))
            try context.save()
            try store.close()
        }
        let store = try Self.open(path, v2, .inferred)
        defer { try? store.close() }
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Person")) == 3)
        let duplicate = #expect(throws: StrataError.self) {
            try store.batchInsert(entityName: "Person", objects: [["firstName": .string("Bob"), "lastName": .string("Lee")]])
        }
        #expect(duplicate?.code == .uniquenessViolation)
    }
}
