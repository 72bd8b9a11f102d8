import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// The inferred mapping of everything that can be inferred, plus the problems, as the
/// start of a custom mapping.
@Suite struct MappingDraftTests {
    static func models() throws -> (v1: ObjectModel, v2: ObjectModel) {
        let v1 = try ObjectModel(version: "1") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("priority", .string)
                Attribute("done", .bool, default: .bool(false))
            }
            Entity("Tag") { Attribute("label", .string) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("priority", .int64)
                Attribute("done", .bool, default: .bool(false))
                Attribute("notes", .string, optional: true)
            }
            Entity("Tag") { Attribute("label", .string) }
        }
        return (v1, v2)
    }

    static let tasks: [(title: String, priority: String, done: Bool)] = [
        ("Taxes", "1", false), ("Dishes", "3", true), ("Laundry", "2", false), ("Garden", "high", false),
    ]

    static func seed(_ path: String, _ v1: ObjectModel) throws {
        try InferredStore.create(at: path, model: v1) { context in
            for task in tasks {
                let object = try context.insert("Task")
                try object.setValue(task.title, forKey: "title")
                try object.setValue(task.priority, forKey: "priority")
                try object.setValue(task.done, forKey: "done")
            }
            try context.insert("Tag").setValue("home", forKey: "label")
        }
    }

    @Test func theDraftHoldsWhatCanBeInferredAndNamesTheRest() throws {
        let (v1, v2) = try Self.models()
        #expect(throws: StrataError.self) { try MappingModel.inferred(from: v1, to: v2) }
        let draft = MappingModel.inferredDraft(from: v1, to: v2)
        #expect(!draft.isComplete)
        #expect(draft.problems == [MappingProblem(entity: "Task", property: "priority", reason: "type change String → Int64 is not lossless")])
        #expect(draft.problems == MappingModel.inferenceProblems(from: v1, to: v2))
        #expect(draft.mapping.sourceModelHash == v1.versionHash && draft.mapping.destinationModelHash == v2.versionHash)
        let task = try #require(draft.mapping.entityMapping(named: "TaskToTask"))
        #expect(task.kind == .transform)
        #expect(task.attributeSummary == [
            "title": "title ← $source.title", "done": "done ← $source.done",
            "notes": "notes ← <default>",
        ], "priority is left for a person to map")
        #expect(draft.mapping.entityMapping(named: "TagToTag")?.kind == .copy)

        // A pair that infers whole: the draft is the inferred mapping.
        let complete = MappingModel.inferredDraft(from: v1, to: v1)
        #expect(complete.isComplete)
        let inferred = try MappingModel.inferred(from: v1, to: v1)
        #expect(complete.mapping.entityMappings.map(\.name) == inferred.entityMappings.map(\.name))
        #expect(complete.mapping.entityMappings.map(\.attributeSummary) == inferred.entityMappings.map(\.attributeSummary))
    }

    @Test func aDraftFinishedByHandMigratesTheStore() throws {
        let dir = try TemporaryDirectory("draft-finished")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        try Self.seed(dir.path, v1)
        var mapping = MappingModel.inferredDraft(from: v1, to: v2).mapping
        let index = try #require(mapping.entityMappings.firstIndex { $0.name == "TaskToTask" })
        mapping.entityMappings[index].attributeMappings.append(PropertyMapping(name: "priority", value: .closure { task in
            .int(Int64(try task.string("priority") ?? "") ?? 0)
        }))
        try InferredStore.migrate(at: dir.path, to: v2, with: .mappings([mapping], models: [v2])) { context in
            let migrated = try context.keyedObjects("Task", by: "title")
            #expect(migrated.count == Self.tasks.count)
            for task in Self.tasks {
                let object = try #require(migrated[task.title])
                #expect(try object.int("priority") == Int(task.priority) ?? 0, "\(task.title)")
                #expect(try object.bool("done") == task.done)
                #expect(try object.string("notes") == nil)
            }
            #expect(try context.keyedObjects("Tag", by: "label").keys.sorted() == ["home"])
        }
    }

    @Test func anUnfinishedDraftFailsValidationNamingTheObjectAndWritesNothing() throws {
        let dir = try TemporaryDirectory("draft-unfinished")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        try Self.seed(dir.path, v1)
        let before = try DirectorySnapshot(dir.path)
        let draft = MappingModel.inferredDraft(from: v1, to: v2)
        let error = #expect(throws: StrataError.self) {
            _ = try ObjectStore(at: dir.path, model: v2, options: InferredStore.options(.mappings([draft.mapping], models: [v2])))
        }
        #expect(error?.code == .migrationValidationFailed)
        #expect(error?.context["entity"] == "Task" && error?.context["property"] == "priority", "\(String(describing: error))")
        #expect(error?.context["object"] == "Task/1")
        #expect(error?.context["count"] == "\(Self.tasks.count)")
        #expect(try DirectorySnapshot(dir.path) == before)
    }
}
