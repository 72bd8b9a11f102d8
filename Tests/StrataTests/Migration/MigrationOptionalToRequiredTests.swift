import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// Optional → non-optional without a default is inferred, as Core Data's lightweight
/// migration infers it: it fails only for an object that really holds nil. Played end
/// to end on stores in temporary directories.
@Suite("Migration: optional to required without a default")
struct MigrationOptionalToRequiredTests {
    static func tasks(_ version: String, dueOptional: Bool) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("due", .date, optional: dueOptional)
            }
        }
    }

    static func open(_ path: String, _ model: ObjectModel) throws -> ObjectStore {
        var options = StoreOptions()
        options.migration = .inferred
        options.migrationBatchSize = 2
        return try ObjectStore(at: path, model: model, options: options)
    }

    @Test func theMappingIsInferredWithoutATransform() throws {
        let mapping = try MappingModel.inferred(from: try Self.tasks("1", dueOptional: true), to: try Self.tasks("2", dueOptional: false))
        let due = try #require(mapping.entityMappings.first?.attributeMapping(named: "due"))
        #expect(due.transforms.isEmpty)
        #expect(MappingModel.inferenceProblems(from: try Self.tasks("1", dueOptional: true), to: try Self.tasks("2", dueOptional: false)).isEmpty)
    }

    @Test func aStoreWhoseObjectsAllHoldAValueMigrates() throws {
        let dir = try TemporaryDirectory("migrate-required-ok")
        defer { dir.remove() }
        let path = dir.appending("Tasks.strata")
        let dates = (0..<5).map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 86_400) }
        var ids: [ObjectID] = []
        do {
            let store = try ObjectStore(at: path, model: try Self.tasks("1", dueOptional: true))
            ids = try store.batchInsert(entityName: "Task", objects: dates.enumerated().map { ["title": .string("t\($0)"), "due": .date($1)] })
            try store.close()
        }
        let v2 = try Self.tasks("2", dueOptional: false)
        try Self.open(path, v2).close()
        let store = try ObjectStore(at: path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        for (index, id) in ids.enumerated() {
            let task = try context.existingObject(with: id)
            #expect(try task.value(forKey: "due") == .date(dates[index]))
            #expect(try task.string("title") == "t\(index)")
        }
        // Required from now on.
        let fresh = try context.insert("Task")
        try fresh.setValue("no date", forKey: "title")
        #expect(throws: StrataError.self) { try context.save() }
    }

    @Test func anObjectHoldingNilFailsTheMigrationNamingIt() throws {
        let dir = try TemporaryDirectory("migrate-required-nil")
        defer { dir.remove() }
        let path = dir.appending("Tasks.strata")
        var ids: [ObjectID] = []
        do {
            let store = try ObjectStore(at: path, model: try Self.tasks("1", dueOptional: true))
            ids = try store.batchInsert(entityName: "Task", objects: [
                ["title": .string("a"), "due": .date(Date(timeIntervalSince1970: 0))],
                ["title": .string("b"), "due": .date(Date(timeIntervalSince1970: 1))],
                ["title": .string("c")],
                ["title": .string("d"), "due": .date(Date(timeIntervalSince1970: 3))],
            ])
            try store.close()
        }
        let before = try DirectorySnapshot(path)
        let error = #expect(throws: StrataError.self) { try Self.open(path, try Self.tasks("2", dueOptional: false)) }
        #expect(error?.code == .migrationValidationFailed)
        #expect(error?.context["entity"] == "Task")
        #expect(error?.context["property"] == "due")
        #expect(error?.context["object"] == ids[2].description)
        #expect(error?.message.contains("Task/\(ids[2].key.rawValue & 0xFFFF_FFFF_FFFF)") == true || error?.message.contains(ids[2].description) == true)
        #expect(try DirectorySnapshot(path) == before)
        let store = try ObjectStore(at: path, model: try Self.tasks("1", dueOptional: true))
        defer { try? store.close() }
        #expect(try store.newContext().existingObject(with: ids[2]).value(forKey: "due") == .null)
    }
}
