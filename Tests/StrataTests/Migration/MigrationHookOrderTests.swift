import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The hooks of entity migration policies run in Core Data's order: each pass over
/// every entity mapping before the next pass starts — begin and instance creation per
/// mapping, then relationships per mapping, then custom validation, then end.
@Suite struct MigrationHookOrderTests {
    /// Every hook call, as "Mapping.hook" or "Mapping.create(name)".
    final class HookLog: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func append(_ entry: String) { lock.withLock { stored.append(entry) } }
        var entries: [String] { lock.withLock { stored } }
    }

    final class RecordingPolicy: EntityMigrationPolicy, @unchecked Sendable {
        let log: HookLog
        init(log: HookLog) { self.log = log }

        override func begin(_ mapping: EntityMapping, manager: MigrationManager) throws {
            log.append("\(mapping.name).begin")
        }
        override func createDestinationInstances(forSource source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            log.append("\(mapping.name).create(\(try source.string("name") ?? "?"))")
            try super.createDestinationInstances(forSource: source, mapping: mapping, manager: manager)
        }
        override func endInstanceCreation(mapping: EntityMapping, manager: MigrationManager) throws {
            log.append("\(mapping.name).endInstanceCreation")
        }
        override func createRelationships(forDestination destination: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            log.append("\(mapping.name).relate(\(try destination.string("name") ?? "?"))")
            try super.createRelationships(forDestination: destination, mapping: mapping, manager: manager)
        }
        override func endRelationshipCreation(mapping: EntityMapping, manager: MigrationManager) throws {
            log.append("\(mapping.name).endRelationshipCreation")
        }
        override func performCustomValidation(mapping: EntityMapping, manager: MigrationManager) throws {
            log.append("\(mapping.name).validate")
        }
        override func end(mapping: EntityMapping, manager: MigrationManager) throws {
            log.append("\(mapping.name).end")
        }
    }

    static func models() throws -> (ObjectModel, ObjectModel) {
        let v1 = try ObjectModel(version: "1") {
            Entity("Shelf") {
                Attribute("name", .string)
                Relationship("books", to: "Book", inverse: "shelf", toMany: true)
            }
            Entity("Book") {
                Attribute("name", .string)
                Relationship("shelf", to: "Shelf", inverse: "books")
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Shelf") {
                Attribute("name", .string)
                Attribute("room", .string, default: .string("hall"))
                Relationship("books", to: "Book", inverse: "shelf", toMany: true)
            }
            Entity("Book") {
                Attribute("name", .string)
                Attribute("pages", .int64, default: .int(0))
                Relationship("shelf", to: "Shelf", inverse: "books")
            }
        }
        return (v1, v2)
    }

    @Test func hooksRunInCoreDataOrderAcrossMappings() throws {
        let dir = try TemporaryDirectory("hook-order")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        do {
            let store = try ObjectStore(at: dir.path, model: v1)
            let context = store.newContext()
            let shelf = try context.insert("Shelf")
            try shelf.setValue("S", forKey: "name")
            for name in ["B1", "B2"] {
                let book = try context.insert("Book")
                try book.setValue(name, forKey: "name")
                try book.setObject(shelf, forKey: "shelf")
            }
            try context.save()
            try store.close()
        }
        let log = HookLog()
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        for index in mapping.entityMappings.indices {
            mapping.entityMappings[index].kind = .custom
            mapping.entityMappings[index].policyFactory = { RecordingPolicy(log: log) }
        }
        let names = mapping.entityMappings.map(\.name)
        #expect(names.count == 2)
        var options = StoreOptions()
        options.migration = .mappings([mapping], models: [v2])
        let store = try ObjectStore(at: dir.path, model: v2, options: options)
        defer { try? store.close() }

        // The objects of one mapping come in key order; which mapping is first is the
        // mapping model's order.
        func objects(of mapping: String) -> [String] { mapping.hasPrefix("Shelf") ? ["S"] : ["B1", "B2"] }
        var expected: [String] = []
        for name in names {
            expected.append("\(name).begin")
            expected += objects(of: name).map { "\(name).create(\($0))" }
            expected.append("\(name).endInstanceCreation")
        }
        for name in names {
            expected += objects(of: name).map { "\(name).relate(\($0))" }
            expected.append("\(name).endRelationshipCreation")
        }
        expected += names.map { "\($0).validate" }
        expected += names.map { "\($0).end" }
        #expect(log.entries == expected)

        let context = store.newContext()
        let shelf = try #require(try context.fetch(FetchRequest(entityName: "Shelf")).first)
        #expect(try shelf.string("room") == "hall")
        #expect(try shelf.objects("books").count == 2)
    }

    @Test func aThrowingHookStopsTheMigrationBeforeTheNextHook() throws {
        final class FailingValidation: EntityMigrationPolicy, @unchecked Sendable {
            let log: HookLog
            init(log: HookLog) { self.log = log }
            override func performCustomValidation(mapping: EntityMapping, manager: MigrationManager) throws {
                log.append("validate")
                throw StrataError(.migrationFailed, "custom validation refused \(mapping.name)")
            }
            override func end(mapping: EntityMapping, manager: MigrationManager) throws { log.append("end") }
        }
        let dir = try TemporaryDirectory("hook-throws")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        do {
            let store = try ObjectStore(at: dir.path, model: v1)
            let context = store.newContext()
            try context.insert("Shelf").setValue("S", forKey: "name")
            try context.save()
            try store.close()
        }
        let before = try DirectorySnapshot(dir.path)
        let log = HookLog()
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        let shelf = try #require(mapping.entityMappings.firstIndex { $0.destinationEntityName == "Shelf" })
        mapping.entityMappings[shelf].kind = .custom
        mapping.entityMappings[shelf].policyFactory = { FailingValidation(log: log) }
        var options = StoreOptions()
        options.migration = .mappings([mapping], models: [v2])
        let error = #expect(throws: StrataError.self) { _ = try ObjectStore(at: dir.path, model: v2, options: options) }
        #expect(error?.message.contains("custom validation refused") == true)
        #expect(log.entries == ["validate"], "end never runs after a refusal")
        #expect(try DirectorySnapshot(dir.path) == before)
    }
}
