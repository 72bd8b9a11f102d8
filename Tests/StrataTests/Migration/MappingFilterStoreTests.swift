import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Entity mappings with source predicates split one entity into two kinds by a
/// condition, on a real store; a policy's own objects are not fed back as sources,
/// and destination objects a hook deletes are skipped by the later passes.
@Suite struct MappingFilterStoreTests {
    /// Counts the policy's hook calls, shared with the test.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var created: [String] = []
        private var related: [String] = []
        func create(_ title: String) { lock.withLock { created.append(title) } }
        func relate(_ title: String) { lock.withLock { related.append(title) } }
        var creations: [String] { lock.withLock { created } }
        var relations: [String] { lock.withLock { related } }
    }

    /// Deletes the new object of a task titled "drop me"; adds a copy of one titled "twin".
    final class DoneTaskPolicy: EntityMigrationPolicy, @unchecked Sendable {
        let calls: Calls
        init(calls: Calls) { self.calls = calls }

        override func createDestinationInstances(forSource task: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            let title = try task.string("title") ?? ""
            calls.create(title)
            try super.createDestinationInstances(forSource: task, mapping: mapping, manager: manager)
            let made = try manager.destinationInstances(forEntityMapping: mapping.name, sourceInstances: [task])
            if title == "drop me" {
                for object in made { try manager.destinationContext.delete(object) }
            }
            if title == "twin" {
                let copy = try manager.destinationContext.insert("DoneTask")
                try copy.setValue("twin copy", forKey: "title")
                try copy.setValue("TWIN COPY", forKey: "shout")
                try copy.setObject(try made.first?.object("project"), forKey: "project")
            }
        }

        override func createRelationships(forDestination task: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            calls.relate(try task.string("title") ?? "")
            try super.createRelationships(forDestination: task, mapping: mapping, manager: manager)
        }
    }

    static func models() throws -> (ObjectModel, ObjectModel) {
        let v1 = try ObjectModel(version: "1") {
            Entity("Project") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "project", toMany: true)
            }
            Entity("Task") {
                Attribute("title", .string)
                Attribute("done", .bool, default: .bool(false))
                Relationship("project", to: "Project", inverse: "tasks")
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Project") {
                Attribute("name", .string)
                Relationship("open", to: "OpenTask", inverse: "project", toMany: true)
                Relationship("done", to: "DoneTask", inverse: "project", toMany: true)
            }
            Entity("OpenTask") {
                Attribute("title", .string)
                Relationship("project", to: "Project", inverse: "open")
            }
            Entity("DoneTask") {
                Attribute("title", .string)
                Attribute("shout", .string)
                Attribute("closedNote", .string, default: .string("?"))
                Relationship("project", to: "Project", inverse: "done")
            }
        }
        return (v1, v2)
    }

    static func mapping(_ v1: ObjectModel, _ v2: ObjectModel, calls: Calls) throws -> MappingModel {
        let project = PropertyMapping(name: "project", value: .keyPath("project"))
        let title = PropertyMapping(name: "title", value: .keyPath("title"))
        return MappingModel(from: v1, to: v2, entityMappings: [
            EntityMapping(name: "ProjectToProject", kind: .copy, sourceEntityName: "Project", destinationEntityName: "Project",
                          attributeMappings: [PropertyMapping(name: "name", value: .keyPath("name"))]),
            EntityMapping(name: "OpenTasks", kind: .transform, sourceEntityName: "Task", destinationEntityName: "OpenTask",
                          attributeMappings: [title], relationshipMappings: [project],
                          sourcePredicate: try Strata.Predicate(format: "done == NO")),
            EntityMapping(name: "DoneTasks", kind: .custom, sourceEntityName: "Task", destinationEntityName: "DoneTask",
                          attributeMappings: [
                              title,
                              PropertyMapping(name: "shout", value: .closure { task in .string((try task.string("title") ?? "").uppercased()) }),
                              PropertyMapping(name: "closedNote", value: .constant(.string("closed in v1"))),
                          ],
                          relationshipMappings: [project],
                          sourcePredicate: try Strata.Predicate(format: "done == YES"),
                          policy: { DoneTaskPolicy(calls: calls) }),
        ])
    }

    @Test func predicatesSplitTasksIntoTwoKindsAndHooksDeletionsAndCreationsHold() throws {
        let dir = try TemporaryDirectory("split-by-predicate")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        let tasks: [(String, Bool, String)] = [
            ("write", false, "Home"), ("paint", true, "Home"), ("drop me", true, "Home"),
            ("call", false, "Work"), ("twin", true, "Work"), ("file", true, "Work"), ("plan", false, "Work"),
        ]
        do {
            let store = try ObjectStore(at: dir.path, model: v1)
            let context = store.newContext()
            var projects: [String: ManagedObject] = [:]
            for name in ["Home", "Work"] {
                let project = try context.insert("Project")
                try project.setValue(name, forKey: "name")
                projects[name] = project
            }
            for (title, done, project) in tasks {
                let task = try context.insert("Task")
                try task.setValue(title, forKey: "title")
                try task.setValue(done, forKey: "done")
                try task.setObject(projects[project], forKey: "project")
            }
            try context.save()
            try store.close()
        }
        let calls = Calls()
        var options = StoreOptions()
        options.migration = .mappings([try Self.mapping(v1, v2, calls: calls)], models: [v2])
        options.migrationBatchSize = 2
        let store = try ObjectStore(at: dir.path, model: v2, options: options)
        defer { try? store.close() }

        // Once per done source task: the policy's own "twin copy" was never a source.
        #expect(calls.creations.sorted() == ["drop me", "file", "paint", "twin"])
        // Relationships once per destination object the mapping made and kept.
        #expect(calls.relations.sorted() == ["file", "paint", "twin"])

        let context = store.newContext()
        func titles(_ entity: String) throws -> [String] {
            try context.fetch(FetchRequest(entityName: entity)).map { try $0.string("title") ?? "" }.sorted()
        }
        #expect(try titles("OpenTask") == ["call", "plan", "write"])
        #expect(try titles("DoneTask") == ["file", "paint", "twin", "twin copy"])
        let paint = try #require(try context.fetch(FetchRequest(entityName: "DoneTask", predicate: try Strata.Predicate(format: "title == 'paint'"))).first)
        #expect(try paint.string("shout") == "PAINT")
        #expect(try paint.string("closedNote") == "closed in v1")
        #expect(try paint.object("project")?.string("name") == "Home")

        let projects = try context.fetch(FetchRequest(entityName: "Project", sortKeys: [.ascending("name")]))
        #expect(try projects.map { try $0.string("name") ?? "" } == ["Home", "Work"])
        #expect(try projects[0].objects("open").map { try $0.string("title") ?? "" } == ["write"])
        #expect(try projects[0].objects("done").map { try $0.string("title") ?? "" } == ["paint"])
        #expect(try projects[1].objects("open").map { try $0.string("title") ?? "" }.sorted() == ["call", "plan"])
        #expect(try projects[1].objects("done").map { try $0.string("title") ?? "" }.sorted() == ["file", "twin", "twin copy"])
        #expect(try store.verify().isSound)
    }
}
