import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// A unique attribute added in place is checked and built by one pass over the
/// records: each record is read once, its term sorted (packed runs spilled beyond the
/// budget) for the check, and the records with their new terms written as one
/// transaction that commits only if the check finds no duplicate.
@Suite("Migration: unique rule checked and built in one pass")
struct InPlaceUniqueBuildTests {
    static func people(_ version: String, unique: Bool) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Person") {
                Attribute("email", .string, unique: unique)
                Attribute("age", .int64, default: .int(0), indexed: true)
            }
        }
    }

    static let count = 3000

    /// Emails longer than 16 bytes sharing their first 16 (`person.with.a.long.prefix.`),
    /// so that neither an inline term nor the sort's first word tells them apart.
    static func email(_ i: Int) -> String { "person.with.a.long.prefix.\(i)@example.com" }

    static func open(_ path: String, _ model: ObjectModel, migrate: Bool, scratch: String) throws -> ObjectStore {
        var options = StoreOptions()
        if migrate { options.migration = .inferred }
        // A quarter of it (the check's share) holds a few hundred terms: the rest spill.
        options.migrationMemoryBudget = 64 << 10
        options.scratchDirectory = scratch
        return try ObjectStore(at: path, model: model, options: options)
    }

    static func seed(_ path: String, scratch: String, duplicateOf: Int?) throws -> [ObjectID] {
        let store = try open(path, try people("1", unique: false), migrate: false, scratch: scratch)
        defer { try? store.close() }
        let rows: [[String: Value]] = (0..<count).map { i in
            ["email": .string(email(i == count - 1 ? duplicateOf ?? i : i)), "age": .int(Int64(i % 90))]
        }
        return try store.batchInsert(entityName: "Person", objects: rows)
    }

    @Test func aDuplicateFailsNamingBothObjectsAndTheStoreIsUnchanged() throws {
        let dir = try TemporaryDirectory("unique-build-dup")
        defer { dir.remove() }
        let path = dir.appending("People.strata"), scratch = dir.appending("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let ids = try Self.seed(path, scratch: scratch, duplicateOf: 1234)
        let before = try StoreContents(path)
        let error = #expect(throws: StrataError.self) {
            try Self.open(path, try Self.people("2", unique: true), migrate: true, scratch: scratch)
        }
        #expect(error?.code == .uniquenessViolation, "\(String(describing: error))")
        #expect(error?.context["entity"] == "Person")
        #expect(error?.context["property"] == "email")
        #expect(error?.context["value"] == "\"\(Self.email(1234))\"")
        #expect(error?.context["objects"] == "\(ids[1234])\n\(ids[Self.count - 1])")
        #expect(error?.message.contains("\(ids[1234])") == true && error?.message.contains("\(ids[Self.count - 1])") == true)
        #expect(try StoreContents(path) == before, "what the store holds is unchanged")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "the sorted runs removed")
    }

    /// Without a duplicate the rule is built: every record is read once (the check
    /// and the build share the pass), the unique attribute answers equality queries
    /// for the old objects, and a new equal value is refused.
    @Test func withoutDuplicatesEachRecordIsReadOnceAndTheRuleAnswers() throws {
        let dir = try TemporaryDirectory("unique-build-ok")
        defer { dir.remove() }
        let path = dir.appending("People.strata"), scratch = dir.appending("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let ids = try Self.seed(path, scratch: scratch, duplicateOf: nil)
        let v2 = try Self.people("2", unique: true)
        do {
            let store = try Self.open(path, v2, migrate: true, scratch: scratch)
            let decoded = store.records.statistics.recordsDecoded
            #expect(decoded >= Self.count && decoded < Self.count * 3 / 2, "\(decoded) records decoded for \(Self.count) objects")
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
            #expect(try store.verify().isSound)
            try store.close()
        }
        let store = try ObjectStore(at: path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        for i in [0, 17, 1234, Self.count - 1] {
            let request = FetchRequest(entityName: "Person", predicate: .key("email") == .constant(.string(Self.email(i))))
            #expect("\(try request.explain(in: context).access)".contains("index"))
            let found = try context.fetch(request)
            #expect(found.map(\.objectID) == [ids[i]], "email \(i)")
            #expect(try found.first?.value(forKey: "age") == .int(Int64(i % 90)))
        }
        #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: .key("email") == .constant(.string("nobody@x")))) == 0)
        #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: .key("age") == .constant(.int(7)))) == Self.count / 90 + (Self.count % 90 > 7 ? 1 : 0))
        let twin = try context.insert("Person")
        try twin.setValue(Self.email(2999), forKey: "email")
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.context["properties"] == "email" && error?.message.contains(Self.email(2999)) == true, "\(String(describing: error))")
    }
}
