import Foundation
import Testing
@testable import Strata
import StrataLog

/// Scenario 2: what lightweight migration infers for the Tasks model, and what it
/// refuses, naming Entity.property and why.
@Suite("Migration: inference, scenario 2")
struct MigrationMappingInferenceTests {
    let v1: ObjectModel

    init() throws {
        v1 = try MigrationFixtures.model("Tasks-v1")
    }

    private func taskMapping(to name: String) throws -> (MappingModel, EntityMapping) {
        let destination = try MigrationFixtures.model(name)
        let mapping = try MappingModel.inferred(from: v1, to: destination)
        #expect(mapping.sourceModelHash == v1.versionHash)
        #expect(mapping.destinationModelHash == destination.versionHash)
        let entity = try #require(mapping.entityMappings.first)
        #expect(mapping.entityMappings.count == 1)
        return (mapping, entity)
    }

    @Test func sameModelIsACopy() throws {
        let mapping = try MappingModel.inferred(from: v1, to: v1)
        let task = try #require(mapping.entityMapping(named: "TaskToTask"))
        #expect(task.kind == .copy)
        #expect(task.attributeMappings.allSatisfy { $0.isIdentity })
        #expect(task.attributeMappings.map(\.name) == ["title", "done", "due", "notes", "priority"])
    }

    @Test func optionalAttributeWithDefaultIsAdded() throws {
        let (_, task) = try taskMapping(to: "Tasks-v2-latitude")
        #expect(task.kind == .transform)
        #expect(task.sourceEntityName == "Task" && task.destinationEntityName == "Task")
        let latitude = try #require(task.attributeMapping(named: "latitude"))
        guard case .defaultValue = latitude.valueExpression else {
            Issue.record("\(latitude)")
            return
        }
        // Old tasks read 0: nil becomes the default.
        #expect(try latitude.finalValue(from: .null) == .double(0))
        #expect(task.attributeSummary["title"] == "title ← $source.title")
    }

    @Test func nonOptionalAttributeWithDefaultIsAdded() throws {
        let (_, task) = try taskMapping(to: "Tasks-v2-latitude-required-default")
        let latitude = try #require(task.attributeMapping(named: "latitude"))
        #expect(latitude.nilReplacement == .double(0))
        #expect(try latitude.finalValue(from: .null) == .double(0))
    }

    @Test func nonOptionalAttributeWithoutDefaultIsRefused() throws {
        let destination = try MigrationFixtures.model("Tasks-v2-latitude-required-no-default")
        let error = expectRefusal(from: v1, to: destination,
                                  problems: ["Task.latitude: new non-optional attribute without a default value"])
        #expect(error?.context["entities"] == "Task")
        #expect(error?.context["sourceHash"] == v1.versionHash)
        #expect(error?.context["destinationHash"] == destination.versionHash)
    }

    @Test func optionalToNonOptionalWithDefaultReplacesNil() throws {
        let (_, task) = try taskMapping(to: "Tasks-v2-due-required-default")
        let due = try #require(task.attributeMapping(named: "due"))
        #expect(due.valueExpression.keyPath == "due")
        let defaultDate = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01T00:00:00Z
        #expect(due.transforms == [.replaceNil(with: .date(defaultDate))])
        #expect(try due.finalValue(from: .null) == .date(defaultDate))
        let kept = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try due.finalValue(from: .date(kept)) == .date(kept))
    }

    /// Inferred as Core Data infers it, whatever the data: only an object holding nil
    /// fails the migration (MigrationOptionalToRequiredTests).
    @Test func optionalToNonOptionalWithoutDefaultIsInferred() throws {
        let mapping = try MappingModel.inferred(from: v1, to: try MigrationFixtures.model("Tasks-v2-due-required-no-default"))
        let due = try #require(mapping.entityMappings.first { $0.destinationEntityName == "Task" }?.attributeMapping(named: "due"))
        guard case .keyPath("due") = due.valueExpression else {
            Issue.record("due maps from \(due.valueExpression)")
            return
        }
        #expect(due.transforms.isEmpty)
    }

    @Test func nonOptionalToOptionalIsInferred() throws {
        let destination = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string, optional: true)
                Attribute("done", .bool, default: .bool(false))
                Attribute("due", .date, optional: true)
                Attribute("notes", .string, optional: true)
                Attribute("priority", .int16, default: .int(0))
            }
        }
        let mapping = try MappingModel.inferred(from: v1, to: destination)
        let title = try #require(mapping.entityMappings.first?.attributeMapping(named: "title"))
        #expect(title.isIdentity)
        #expect(mapping.entityMappings.first?.kind == .transform)
    }

    @Test func removedAttributeHasNoMapping() throws {
        let (_, task) = try taskMapping(to: "Tasks-v2-remove-attribute")
        #expect(task.kind == .transform)
        #expect(task.attributeMappings.map(\.name) == ["title", "done", "due", "priority"])
        #expect(task.attributeMappings.allSatisfy { $0.isIdentity })
    }

    @Test func entityRenameThroughRenamingIdentifier() throws {
        let (_, todo) = try taskMapping(to: "Tasks-v2-rename-todo")
        #expect(todo.name == "TaskToTodo")
        #expect(todo.sourceEntityName == "Task")
        #expect(todo.destinationEntityName == "Todo")
        #expect(todo.kind == .transform)
        #expect(todo.attributeMappings.allSatisfy { $0.isIdentity })
    }

    @Test func attributeRenameThroughRenamingIdentifier() throws {
        let (_, task) = try taskMapping(to: "Tasks-v2-rename-title")
        let name = try #require(task.attributeMapping(named: "name"))
        #expect(name.valueExpression.keyPath == "title")
        #expect(name.transforms.isEmpty)
        #expect(task.attributeMapping(named: "title") == nil)
    }

    @Test func everyProblemIsListedAtOnce() throws {
        let destination = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .int64)
                Attribute("done", .bool, default: .bool(false))
                Attribute("due", .date)
                Attribute("priority", .int64, default: .int(0))
                Attribute("latitude", .double)
            }
        }
        expectRefusal(from: v1, to: destination, problems: [
            "Task.title: type change String → Int64 is not lossless",
            "Task.latitude: new non-optional attribute without a default value",
        ])
    }

    @Test func transientAttributesAreNotMapped() throws {
        let destination = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("done", .bool, default: .bool(false))
                Attribute("due", .date, optional: true)
                Attribute("notes", .string, optional: true)
                Attribute("priority", .int16, default: .int(0))
                // Non-optional, no default, but never stored: nothing to infer.
                Attribute("summary", .string, transient: true)
            }
        }
        let mapping = try MappingModel.inferred(from: v1, to: destination)
        #expect(mapping.entityMappings.first?.attributeMapping(named: "summary") == nil)
    }
}
