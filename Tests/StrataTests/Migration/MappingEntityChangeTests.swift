import Foundation
import Testing
@testable import Strata
import StrataLog

/// Added and removed entities and relationships, relationship rules, renames of
/// relationships, and the refusals that name the relationship.
@Suite("Migration: entities and relationships")
struct MigrationMappingEntityChangeTests {
    static func folders(version: String, _ extra: () throws -> [Entity] = { [] }) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "folder", toMany: true)
            }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("folder", to: "Folder", inverse: "tasks")
            }
        }
    }

    @Test func addedAndRemovedEntities() throws {
        let source = try ObjectModel(version: "1") {
            Entity("Task") { Attribute("title", .string) }
            Entity("Draft") { Attribute("text", .string) }
        }
        let destination = try ObjectModel(version: "2") {
            Entity("Task") { Attribute("title", .string) }
            Entity("Tag") {
                Attribute("label", .string)
                Attribute("color", .string, default: .string("red"))
            }
        }
        let mapping = try MappingModel.inferred(from: source, to: destination)
        #expect(mapping.entityMappings.map(\.name) == ["AddTag", "TaskToTask", "RemoveDraft"])
        let tag = try #require(mapping.entityMapping(named: "AddTag"))
        #expect(tag.kind == .add && tag.sourceEntityName == nil && tag.destinationEntityName == "Tag")
        let remove = try #require(mapping.entityMapping(named: "RemoveDraft"))
        #expect(remove.kind == .remove && remove.sourceEntityName == "Draft" && remove.destinationEntityName == nil)
        #expect(mapping.entityMapping(named: "TaskToTask")?.kind == .copy)
        #expect(mapping.entityMappings(forSourceEntity: "Draft").map(\.name) == ["RemoveDraft"])
        #expect(mapping.entityMappings(forDestinationEntity: "Tag").map(\.name) == ["AddTag"])
    }

    @Test func addedAndRemovedRelationships() throws {
        let source = try ObjectModel(version: "1") {
            Entity("Folder") { Attribute("name", .string) }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "tasks")
            }
            Entity("Person") { Relationship("tasks", to: "Task", inverse: "owner", toMany: true) }
        }
        let destination = try Self.folders(version: "2")
        let mapping = try MappingModel.inferred(from: source, to: destination)
        let task = try #require(mapping.entityMapping(named: "TaskToTask"))
        #expect(task.relationshipSummary == ["folder": "folder ← <default>"])
        let folder = try #require(mapping.entityMapping(named: "FolderToFolder"))
        #expect(folder.relationshipSummary == ["tasks": "tasks ← <default>"])
        #expect(mapping.entityMapping(named: "RemovePerson")?.kind == .remove)
    }

    @Test func toOneBecomesToMany() throws {
        let source = try ObjectModel(version: "1") {
            Entity("Task") { Relationship("tag", to: "Tag", inverse: "tasks") }
            Entity("Tag") { Relationship("tasks", to: "Task", inverse: "tag", toMany: true) }
        }
        let destination = try ObjectModel(version: "2") {
            Entity("Task") { Relationship("tag", to: "Tag", inverse: "tasks", toMany: true) }
            Entity("Tag") { Relationship("tasks", to: "Task", inverse: "tag", toMany: true) }
        }
        let mapping = try MappingModel.inferred(from: source, to: destination)
        #expect(mapping.entityMapping(named: "TaskToTask")?.relationshipSummary == ["tag": "tag ← $source.tag"])
        #expect(mapping.entityMapping(named: "TaskToTask")?.kind == .transform)
        // The other way would drop objects.
        expectRefusal(from: destination, to: source,
                      problems: ["Task.tag: to-many → to-one would drop related objects"])
    }

    @Test func relationshipRenameThroughRenamingIdentifier() throws {
        let source = try Self.folders(version: "1")
        let destination = try ObjectModel(version: "2") {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("items", to: "Task", inverse: "container", toMany: true).renamed(from: "tasks")
            }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("container", to: "Folder", inverse: "items").renamed(from: "folder")
            }
        }
        let mapping = try MappingModel.inferred(from: source, to: destination)
        #expect(mapping.entityMapping(named: "FolderToFolder")?.relationshipSummary == ["items": "items ← $source.tasks"])
        #expect(mapping.entityMapping(named: "TaskToTask")?.relationshipSummary
                == ["container": "container ← $source.folder"])
    }

    @Test func renameWithoutIdentifierOnOneSideIsRefusedWithAHint() throws {
        let source = try Self.folders(version: "1")
        let destination = try ObjectModel(version: "2") {
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "container", toMany: true)
            }
            Entity("Task") {
                Attribute("title", .string)
                Relationship("container", to: "Folder", inverse: "tasks")
            }
        }
        expectRefusal(from: source, to: destination, problems: [
            "Task.container: new relationship, but its inverse 'Folder.tasks' keeps the objects of "
                + "'Folder.tasks', whose inverse was 'folder': set renamingIdentifier \"folder\" if it was renamed",
        ])
    }

    @Test func relationshipRefusals() throws {
        let source = try ObjectModel(version: "1") {
            Entity("Task") {
                Attribute("title", .string)
                Relationship("folder", to: "Folder", inverse: "tasks")
            }
            Entity("Folder") { Relationship("tasks", to: "Task", inverse: "folder", toMany: true) }
            Entity("Label") { Attribute("text", .string) }
        }
        expectRefusal(from: source, to: try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string)
                Relationship("folder", to: "Folder", inverse: "tasks", optional: false)
                Relationship("owner", to: "Person", inverse: "tasks", optional: false)
            }
            Entity("Folder") { Relationship("tasks", to: "Task", inverse: "folder", toMany: true) }
            Entity("Person") { Relationship("tasks", to: "Task", inverse: "owner", toMany: true) }
            Entity("Label") { Attribute("text", .string) }
        }, problems: [
            "Task.folder: optional → non-optional relationship; objects without a destination have nothing to relate to",
            "Task.owner: new non-optional relationship; existing objects have nothing to relate to",
        ])
    }

    @Test func propertyKindChangeIsRefused() throws {
        let source = try ObjectModel(version: "1") {
            Entity("Task") { Attribute("folder", .string, optional: true) }
            Entity("Folder") { Attribute("name", .string) }
        }
        let destination = try ObjectModel(version: "2") {
            Entity("Task") { Relationship("folder", to: "Folder", inverse: "tasks") }
            Entity("Folder") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "folder", toMany: true)
            }
        }
        expectRefusal(from: source, to: destination,
                      problems: ["Task.folder: was the attribute 'Task.folder', is now a relationship"])
    }

    @Test func destinationChangeIsRefused() throws {
        let source = try ObjectModel(version: "1") {
            Entity("Task") { Relationship("place", to: "Folder", inverse: "tasks") }
            Entity("Folder") { Relationship("tasks", to: "Task", inverse: "place", toMany: true) }
            Entity("Box") { Relationship("tasks", to: "Task", toMany: true).withoutInverse() }
        }
        let destination = try ObjectModel(version: "2") {
            Entity("Task") { Relationship("place", to: "Box", inverse: "tasks") }
            Entity("Folder") { Attribute("name", .string, optional: true) }
            Entity("Box") { Relationship("tasks", to: "Task", inverse: "place", toMany: true) }
        }
        let problems = MappingModel.inferenceProblems(from: source, to: destination).map(\.description)
        #expect(problems.contains("Task.place: destination 'Folder' changed to 'Box', but 'Folder' becomes 'Folder'"),
                "\(problems)")
    }

    @Test func twoEntitiesClaimingOneSourceAreRefused() throws {
        let source = try ObjectModel(version: "1") { Entity("Task") { Attribute("title", .string) } }
        let destination = try ObjectModel(version: "2") {
            Entity("Todo") { Attribute("title", .string) }.renamed(from: "Task")
            Entity("Chore") { Attribute("title", .string) }.renamed(from: "Task")
        }
        expectRefusal(from: source, to: destination,
                      problems: ["Todo: renaming identifier 'Task' names the entity 'Chore' also receives"])
    }

    @Test func newEntityReusingARenamedEntitysNameIsAdded() throws {
        let source = try ObjectModel(version: "1") { Entity("Task") { Attribute("title", .string) } }
        let destination = try ObjectModel(version: "2") {
            Entity("Todo") { Attribute("title", .string) }.renamed(from: "Task")
            Entity("Task") { Attribute("kind", .string, optional: true) }
        }
        let mapping = try MappingModel.inferred(from: source, to: destination)
        #expect(mapping.entityMappings.map(\.name) == ["AddTask", "TaskToTodo"])
    }
}
