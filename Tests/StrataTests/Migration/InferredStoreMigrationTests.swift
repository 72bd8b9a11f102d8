import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// The inferred (lightweight) changes, each end to end on a real store:
/// a store written at the old model with a few objects (nil where it matters) is
/// opened at the new model with `.inferred` (or a plan, or mappings), every object's
/// values and links are checked, the store verifies, and it reopens at the new model
/// without migration. Every refusal the mapping-level tests cover is checked here on
/// a store: the message names Entity.property and why, and nothing was written.
@Suite struct InferredStoreMigrationTests {
    // MARK: Entities

    @Test func addingAnEntity() throws {
        let dir = try TemporaryDirectory("inferred-add-entity")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") { Entity("Task") { Attribute("title", .string) } }
        let v2 = try ObjectModel(version: "2") {
            Entity("Task") { Attribute("title", .string) }
            Entity("Tag") {
                Attribute("label", .string)
                Attribute("color", .string, default: .string("red"))
            }
        }
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            for title in ["a", "b", "c"] { try context.insert("Task").setValue(title, forKey: "title") }
        }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            #expect(try context.keyedObjects("Task", by: "title").keys.sorted() == ["a", "b", "c"])
            #expect(try context.count(for: FetchRequest(entityName: "Tag")) == 0)
        }
        // The new entity takes objects, and the old ones are still there beside them.
        let store = try ObjectStore(at: dir.path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        let tag = try context.insert("Tag")
        try tag.setValue("urgent", forKey: "label")
        try context.save()
        let fresh = store.newContext()
        #expect(try fresh.keyedObjects("Tag", by: "label")["urgent"]?.string("color") == "red")
        #expect(try fresh.count(for: FetchRequest(entityName: "Task")) == 3)
    }

    @Test func removingAnEntity() throws {
        let dir = try TemporaryDirectory("inferred-remove-entity")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("notes", .string, optional: true)
            }
            Entity("Draft") { Attribute("text", .string) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("notes", .string, optional: true)
            }
        }
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            let a = try context.insert("Task")
            try a.setValue("a", forKey: "title")
            try a.setValue("first", forKey: "notes")
            try context.insert("Task").setValue("b", forKey: "title")
            for text in ["x", "y"] { try context.insert("Draft").setValue(text, forKey: "text") }
        }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(tasks.keys.sorted() == ["a", "b"])
            #expect(try tasks["a"]?.string("notes") == "first")
            #expect(try tasks["b"]?.value(forKey: "notes") == .null)
            let error = #expect(throws: StrataError.self) { _ = try context.fetch(FetchRequest(entityName: "Draft")) }
            #expect(error?.code == .unknownKeyPath)
        }
        // The drafts are gone, not hidden: a later version that brings back a Draft
        // entity starts it empty.
        let v3 = try ObjectModel(version: "3") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("notes", .string, optional: true)
            }
            Entity("Draft") { Attribute("text", .string) }
        }
        try InferredStore.migrate(at: dir.path, to: v3) { context throws in
            #expect(try context.count(for: FetchRequest(entityName: "Draft")) == 0)
            #expect(try context.count(for: FetchRequest(entityName: "Task")) == 2)
        }
    }

    // MARK: Relationships

    /// Folder 1:n Task, named as given.
    static func folders(version: String, tasks: String = "tasks", folder: String = "folder",
                        renamed: Bool = false, folderOptional: Bool = true, titleOptional: Bool = false) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Folder") {
                Attribute("name", .string)
                renamed ? Relationship(tasks, to: "Task", inverse: folder, toMany: true).renamed(from: "tasks")
                    : Relationship(tasks, to: "Task", inverse: folder, toMany: true)
            }
            Entity("Task") {
                Attribute("title", .string, optional: titleOptional)
                renamed ? Relationship(folder, to: "Folder", inverse: tasks, optional: folderOptional).renamed(from: "folder")
                    : Relationship(folder, to: "Folder", inverse: tasks, optional: folderOptional)
            }
        }
    }

    /// Inbox holds a and b, Later holds c, d is in no folder (when `d` is true).
    static func fillFolders(_ context: ObjectContext, d: Bool = true) throws {
        let inbox = try context.insert("Folder")
        try inbox.setValue("Inbox", forKey: "name")
        let later = try context.insert("Folder")
        try later.setValue("Later", forKey: "name")
        for (title, folder) in [("a", inbox), ("b", inbox), ("c", later)] {
            let task = try context.insert("Task")
            try task.setValue(title, forKey: "title")
            try task.setObject(folder, forKey: "folder")
        }
        if d { try context.insert("Task").setValue("d", forKey: "title") }
    }

    /// The links of ``fillFolders(_:d:)`` under the relationship names given, both ways.
    static func expectFolderLinks(_ context: ObjectContext, tasks: String = "tasks", folder: String = "folder",
                                  d: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let folders = try context.keyedObjects("Folder", by: "name")
        let all = try context.keyedObjects("Task", by: "title")
        #expect(folders.keys.sorted() == ["Inbox", "Later"], sourceLocation: sourceLocation)
        #expect(all.keys.sorted() == (d ? ["a", "b", "c", "d"] : ["a", "b", "c"]), sourceLocation: sourceLocation)
        #expect(try folders["Inbox"]?.objects(tasks).map { try $0.string("title") ?? "" }.sorted() == ["a", "b"], sourceLocation: sourceLocation)
        #expect(try folders["Later"]?.objects(tasks).map { try $0.string("title") ?? "" } == ["c"], sourceLocation: sourceLocation)
        for (title, name) in [("a", "Inbox"), ("b", "Inbox"), ("c", "Later")] {
            #expect(try all[title]?.object(folder)?.string("name") == name, "\(title)", sourceLocation: sourceLocation)
        }
        if d { #expect(try all["d"]?.object(folder) == nil, sourceLocation: sourceLocation) }
    }

    @Test func addingARelationshipWithItsInverse() throws {
        let dir = try TemporaryDirectory("inferred-add-relationship")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Folder") { Attribute("name", .string) }
            Entity("Task") { Attribute("title", .string) }
        }
        let v2 = try Self.folders(version: "2")
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            for name in ["Inbox", "Later"] { try context.insert("Folder").setValue(name, forKey: "name") }
            for title in ["a", "b"] { try context.insert("Task").setValue(title, forKey: "title") }
        }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let folders = try context.keyedObjects("Folder", by: "name")
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(folders.keys.sorted() == ["Inbox", "Later"])
            #expect(tasks.keys.sorted() == ["a", "b"])
            for folder in folders.values { #expect(try folder.count("tasks") == 0) }
            for task in tasks.values { #expect(try task.object("folder") == nil) }
        }
        // The new relationship links and keeps its inverse.
        let store = try ObjectStore(at: dir.path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        let inbox = try #require(try context.keyedObjects("Folder", by: "name")["Inbox"])
        try #require(try context.keyedObjects("Task", by: "title")["b"]).setObject(inbox, forKey: "folder")
        try context.save()
        let fresh = store.newContext()
        #expect(try fresh.keyedObjects("Folder", by: "name")["Inbox"]?.objects("tasks").map { try $0.string("title") } == ["b"])
    }

    @Test func removingARelationshipAndItsInverseKeepsBothSidesObjects() throws {
        let dir = try TemporaryDirectory("inferred-remove-relationship")
        defer { dir.remove() }
        let v2 = try ObjectModel(version: "2") {
            Entity("Folder") { Attribute("name", .string) }
            Entity("Task") { Attribute("title", .string) }
        }
        try InferredStore.create(at: dir.path, model: try Self.folders(version: "1")) { try Self.fillFolders($0) }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            #expect(try context.keyedObjects("Folder", by: "name").keys.sorted() == ["Inbox", "Later"])
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(tasks.keys.sorted() == ["a", "b", "c", "d"])
            let error = #expect(throws: StrataError.self) { _ = try tasks["a"]?.object("folder") }
            #expect(error?.code == .unknownKeyPath)
        }
    }

    @Test func removingAnEntityAndTheRelationshipToIt() throws {
        let dir = try TemporaryDirectory("inferred-remove-owner")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Task") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "tasks")
            }
            Entity("Person") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "owner", toMany: true)
            }
        }
        let v2 = try ObjectModel(version: "2") { Entity("Task") { Attribute("title", .string) } }
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            let ada = try context.insert("Person")
            try ada.setValue("Ada", forKey: "name")
            for title in ["a", "b"] {
                let task = try context.insert("Task")
                try task.setValue(title, forKey: "title")
                try task.setObject(ada, forKey: "owner")
            }
            try context.insert("Task").setValue("c", forKey: "title")
        }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            #expect(try context.keyedObjects("Task", by: "title").keys.sorted() == ["a", "b", "c"])
            #expect(throws: StrataError.self) { _ = try context.fetch(FetchRequest(entityName: "Person")) }
        }
    }

    @Test func nonOptionalBecomesOptionalForAnAttributeAndARelationship() throws {
        let dir = try TemporaryDirectory("inferred-optional")
        defer { dir.remove() }
        let v1 = try Self.folders(version: "1", folderOptional: false)
        let v2 = try Self.folders(version: "2", folderOptional: true, titleOptional: true)
        #expect(v1.versionHash != v2.versionHash)
        try InferredStore.create(at: dir.path, model: v1) { try Self.fillFolders($0, d: false) }
        try InferredStore.migrate(at: dir.path, to: v2) { try Self.expectFolderLinks($0, d: false) }
        // What v1 refused at save, v2 takes: a task without a title and without a folder.
        let store = try ObjectStore(at: dir.path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        let c = try #require(try context.keyedObjects("Task", by: "title")["c"])
        try c.setObject(nil, forKey: "folder")
        try c.setValue(nil as String?, forKey: "title")
        try context.save()
        let fresh = store.newContext()
        let untitled = try #require(try fresh.keyedObjects("Task", by: "title")["<nil>"])
        #expect(try untitled.object("folder") == nil)
        #expect(try fresh.keyedObjects("Folder", by: "name")["Later"]?.count("tasks") == 0)
    }

    @Test func renamingARelationshipAndItsInverseKeepsTheLinksBothWays() throws {
        let dir = try TemporaryDirectory("inferred-rename-relationship")
        defer { dir.remove() }
        let v2 = try Self.folders(version: "2", tasks: "items", folder: "container", renamed: true)
        try InferredStore.create(at: dir.path, model: try Self.folders(version: "1")) { try Self.fillFolders($0) }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            try Self.expectFolderLinks(context, tasks: "items", folder: "container")
            let a = try #require(try context.keyedObjects("Task", by: "title")["a"])
            #expect(throws: StrataError.self) { _ = try a.object("folder") }
        }
    }

    @Test func toOneBecomesToManyWithTheOldDestinationAsAOneElementSet() throws {
        let dir = try TemporaryDirectory("inferred-to-many")
        defer { dir.remove() }
        // One-to-one becomes one-to-many: Task.tag turns to-many, Tag.task stays to-one.
        let v1 = try ObjectModel(version: "1") {
            Entity("Task") {
                Attribute("title", .string)
                Relationship("tag", to: "Tag", inverse: "task")
            }
            Entity("Tag") {
                Attribute("label", .string)
                Relationship("task", to: "Task", inverse: "tag")
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string)
                Relationship("tag", to: "Tag", inverse: "task", toMany: true)
            }
            Entity("Tag") {
                Attribute("label", .string)
                Relationship("task", to: "Task", inverse: "tag")
            }
        }
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            for (title, label) in [("a", "red"), ("b", "blue"), ("c", nil)] as [(String, String?)] {
                let task = try context.insert("Task")
                try task.setValue(title, forKey: "title")
                if let label {
                    let tag = try context.insert("Tag")
                    try tag.setValue(label, forKey: "label")
                    try task.setObject(tag, forKey: "tag")
                }
            }
            try context.insert("Tag").setValue("green", forKey: "label")
        }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(try Self.labels(tasks["a"]) == ["red"])
            #expect(try Self.labels(tasks["b"]) == ["blue"])
            #expect(try Self.labels(tasks["c"]) == [])
            let tags = try context.keyedObjects("Tag", by: "label")
            #expect(try tags["red"]?.object("task")?.string("title") == "a")
            #expect(try tags["blue"]?.object("task")?.string("title") == "b")
            #expect(try tags["green"]?.object("task") == nil)
        }
        // Now a task holds many tags.
        let store = try ObjectStore(at: dir.path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        let green = try #require(try context.keyedObjects("Tag", by: "label")["green"])
        try #require(try context.keyedObjects("Task", by: "title")["a"]).add(green, to: "tag")
        try context.save()
        let fresh = store.newContext()
        #expect(try Self.labels(fresh.keyedObjects("Task", by: "title")["a"]) == ["green", "red"])
        #expect(try fresh.keyedObjects("Tag", by: "label")["green"]?.object("task")?.string("title") == "a")
    }

    /// The labels of a task's to-many `tag`, sorted; the titles of a tag's `tasks`.
    static func labels(_ task: ManagedObject?) throws -> [String]? { try task?.objects("tag").map { try $0.string("label") ?? "" }.sorted() }
    static func titles(_ tag: ManagedObject?) throws -> [String]? { try tag?.objects("tasks").map { try $0.string("title") ?? "" }.sorted() }

    /// One-to-many becomes many-to-many (the mapping-level test's case): Tag.tasks was
    /// derived from Task.tag in v1 and is a stored list in v2.
    @Test func toOneBecomesToManyOnAOneToManyMakingItManyToMany() throws {
        let dir = try TemporaryDirectory("inferred-many-to-many")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Task") {
                Attribute("title", .string)
                Relationship("tag", to: "Tag", inverse: "tasks")
            }
            Entity("Tag") {
                Attribute("label", .string)
                Relationship("tasks", to: "Task", inverse: "tag", toMany: true)
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string)
                Relationship("tag", to: "Tag", inverse: "tasks", toMany: true)
            }
            Entity("Tag") {
                Attribute("label", .string)
                Relationship("tasks", to: "Task", inverse: "tag", toMany: true)
            }
        }
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            var tags: [String: ManagedObject] = [:]
            for label in ["red", "blue", "green"] {
                let tag = try context.insert("Tag")
                try tag.setValue(label, forKey: "label")
                tags[label] = tag
            }
            for (title, label) in [("a", "red"), ("b", "red"), ("c", "blue"), ("d", nil)] as [(String, String?)] {
                let task = try context.insert("Task")
                try task.setValue(title, forKey: "title")
                try task.setObject(label.flatMap { tags[$0] }, forKey: "tag")
            }
        }
        let before = try DirectorySnapshot(dir.path)
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(try Self.labels(tasks["a"]) == ["red"])
            #expect(try Self.labels(tasks["b"]) == ["red"])
            #expect(try Self.labels(tasks["c"]) == ["blue"])
            #expect(try Self.labels(tasks["d"]) == [])
            let tags = try context.keyedObjects("Tag", by: "label")
            #expect(try Self.titles(tags["red"]) == ["a", "b"])
            #expect(try Self.titles(tags["blue"]) == ["c"])
            #expect(try Self.titles(tags["green"]) == [])
        }
        #expect(try DirectorySnapshot(dir.path) != before)
        // Reopened, the tags still list their tasks from the stored many-to-many side.
        let store = try ObjectStore(at: dir.path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        #expect(try Self.labels(context.keyedObjects("Task", by: "title")["a"]) == ["red"])
        #expect(try Self.titles(context.keyedObjects("Tag", by: "label")["red"]) == ["a", "b"])
    }

    // MARK: Attribute type changes

    struct Conversion: Sendable, CustomTestStringConvertible {
        var from: AttributeType
        var to: AttributeType
        var stored: Value
        var expected: Value
        init(_ from: AttributeType, _ to: AttributeType, _ stored: Value, _ expected: Value) {
            (self.from, self.to, self.stored, self.expected) = (from, to, stored, expected)
        }
        var testDescription: String { "\(from.rawValue) → \(to.rawValue)" }
    }

    /// The type changes inference makes (``MappingTransform/isInferred(from:to:)``).
    static let lossless: [Conversion] = [
        Conversion(.int16, .int64, .int(3), .int(3)),
        Conversion(.int16, .int32, .int(-300), .int(-300)),
        Conversion(.int32, .int64, .int(2_000_000_000), .int(2_000_000_000)),
        Conversion(.int16, .double, .int(7), .double(7)),
        Conversion(.int32, .double, .int(-123_456), .double(-123_456)),
        Conversion(.float, .double, .double(0.5), .double(0.5)),
    ]

    /// The conversions an explicit mapping makes and inference refuses (anything to a
    /// string, Int64 → Double): they may change a value, so they are not "lossless".
    static let explicitOnly: [Conversion] = [
        Conversion(.int64, .double, .int(9_007_199_254_740_992), .double(9_007_199_254_740_992)),  // 2^53, exact
        Conversion(.int16, .string, .int(-3), .string("-3")),
        Conversion(.int64, .string, .int(42), .string("42")),
        Conversion(.double, .string, .double(1.5), .string("1.5")),
        Conversion(.bool, .string, .bool(true), .string("true")),
        Conversion(.date, .string, .date(Date(timeIntervalSince1970: 946_684_800.25)), .string("2000-01-01T00:00:00.250Z")),
        Conversion(.uuid, .string, .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                   .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
        Conversion(.binary, .string, .binary(Data([1, 2, 3])), .string("AQID")),
        Conversion(.url, .string, .url(URL(string: "https://example.com/a?b=1")!), .string("https://example.com/a?b=1")),
        Conversion(.decimal, .string, .decimal(Decimal(string: "12.34")!), .string("12.34")),
    ]

    static func typed(_ version: String, _ type: AttributeType) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("value", type, optional: true)
            }
        }
    }

    /// "set" holds the value, "unset" holds none.
    static func fillTyped(_ context: ObjectContext, _ value: Value) throws {
        let set = try context.insert("Task")
        try set.setValue("set", forKey: "title")
        try set.setValue(value, forKey: "value")
        try context.insert("Task").setValue("unset", forKey: "title")
    }

    @Test(arguments: lossless)
    func aLosslessTypeChangeConvertsStoredValues(_ conversion: Conversion) throws {
        let dir = try TemporaryDirectory("inferred-type")
        defer { dir.remove() }
        try InferredStore.create(at: dir.path, model: try Self.typed("1", conversion.from)) { try Self.fillTyped($0, conversion.stored) }
        try InferredStore.migrate(at: dir.path, to: try Self.typed("2", conversion.to)) { context throws in
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(tasks.keys.sorted() == ["set", "unset"])
            #expect(try tasks["set"]?.value(forKey: "value") == conversion.expected)
            #expect(try tasks["unset"]?.value(forKey: "value") == .null, "no value stays no value")
        }
    }

    @Test(arguments: explicitOnly)
    func aConversionInferenceRefusesRunsThroughAnExplicitMapping(_ conversion: Conversion) throws {
        let dir = try TemporaryDirectory("explicit-type")
        defer { dir.remove() }
        let (v1, v2) = (try Self.typed("1", conversion.from), try Self.typed("2", conversion.to))
        try InferredStore.create(at: dir.path, model: v1) { try Self.fillTyped($0, conversion.stored) }
        let problems = MappingModel.inferenceProblems(from: v1, to: v2)
        #expect(problems.count == 1)
        #expect(problems.first?.description.hasPrefix(
            "Task.value: type change \(conversion.from.migrationDisplayName) → \(conversion.to.migrationDisplayName) is not inferred") == true,
            "\(problems)")
        #expect(problems.first?.reason.contains(".convert(from: .\(conversion.from.rawValue), to: .\(conversion.to.rawValue))") == true)
        let mapping = MappingModel(from: v1, to: v2, entityMappings: [
            EntityMapping(name: "TaskToTask", kind: .transform, sourceEntityName: "Task", destinationEntityName: "Task",
                          attributeMappings: [
                              PropertyMapping(name: "title", value: .keyPath("title")),
                              PropertyMapping(name: "value", value: .keyPath("value"),
                                              transforms: [.convert(from: conversion.from, to: conversion.to)]),
                          ]),
        ])
        try InferredStore.migrate(at: dir.path, to: v2, with: .mappings([mapping], models: [v2])) { context throws in
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(tasks.keys.sorted() == ["set", "unset"])
            #expect(try tasks["set"]?.value(forKey: "value") == conversion.expected)
            #expect(try tasks["unset"]?.value(forKey: "value") == .null, "no value stays no value")
        }
    }

    static let lossy: [(AttributeType, AttributeType, Value, String)] = [
        (.string, .int64, .string("3"), "String → Int64"),
        (.int64, .int32, .int(5), "Int64 → Int32"),
        (.int32, .int16, .int(5), "Int32 → Int16"),
        (.double, .int64, .double(2), "Double → Int64"),
        (.double, .float, .double(0.5), "Double → Float"),
        (.int64, .float, .int(1), "Int64 → Float"),
        (.bool, .int16, .bool(true), "Bool → Int16"),
        (.date, .double, .date(Date(timeIntervalSince1970: 0)), "Date → Double"),
        (.string, .url, .string("https://example.com"), "String → URI"),
    ]

    @Test(arguments: lossy.indices)
    func aLossyTypeChangeIsRefusedAndWritesNothing(_ index: Int) throws {
        let (from, to, stored, text) = Self.lossy[index]
        let dir = try TemporaryDirectory("inferred-lossy")
        defer { dir.remove() }
        let v1 = try Self.typed("1", from)
        try InferredStore.create(at: dir.path, model: v1) { try Self.fillTyped($0, stored) }
        try InferredStore.expectRefusal(
            at: dir.path, from: v1, to: try Self.typed("2", to),
            problems: ["Task.value: type change \(text) is not lossless"]
        ) { context throws in
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(try tasks["set"]?.value(forKey: "value") == stored)
            #expect(try tasks["unset"]?.value(forKey: "value") == .null)
        }
    }

    // MARK: Renames chained across versions

    /// v1 List/Task → v2 List/Todo (Task renamed, title → name, tasks → todos) → v3
    /// List/Chore (Todo renamed, name → label, todos → chores). Renaming identifiers
    /// name the previous version only.
    static func chain() throws -> [ObjectModel] {
        let v1 = try ObjectModel(version: "1") {
            Entity("List") {
                Attribute("name", .string)
                Relationship("tasks", to: "Task", inverse: "list", toMany: true)
            }
            Entity("Task") {
                Attribute("title", .string)
                Attribute("notes", .string, optional: true)
                Relationship("list", to: "List", inverse: "tasks")
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("List") {
                Attribute("name", .string)
                Relationship("todos", to: "Todo", inverse: "list", toMany: true).renamed(from: "tasks")
            }
            Entity("Todo") {
                Attribute("name", .string).renamed(from: "title")
                Attribute("notes", .string, optional: true)
                Relationship("list", to: "List", inverse: "todos")
            }.renamed(from: "Task")
        }
        let v3 = try ObjectModel(version: "3") {
            Entity("List") {
                Attribute("name", .string)
                Relationship("chores", to: "Chore", inverse: "list", toMany: true).renamed(from: "todos")
            }
            Entity("Chore") {
                Attribute("label", .string).renamed(from: "name")
                Attribute("notes", .string, optional: true)
                Relationship("list", to: "List", inverse: "chores")
            }.renamed(from: "Todo")
        }
        return [v1, v2, v3]
    }

    static func fillChain(_ context: ObjectContext) throws {
        let home = try context.insert("List")
        try home.setValue("Home", forKey: "name")
        let rows: [(String, String?, ManagedObject?)] = [("Dishes", "tonight", home), ("Laundry", nil, home), ("Taxes", "April", nil)]
        for (title, notes, list) in rows {
            let task = try context.insert("Task")
            try task.setValue(title, forKey: "title")
            try task.setValue(notes, forKey: "notes")
            try task.setObject(list, forKey: "list")
        }
    }

    static func expectChores(_ context: ObjectContext, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let chores = try context.keyedObjects("Chore", by: "label")
        #expect(chores.keys.sorted() == ["Dishes", "Laundry", "Taxes"], sourceLocation: sourceLocation)
        #expect(try chores["Dishes"]?.value(forKey: "notes") == .string("tonight"), sourceLocation: sourceLocation)
        #expect(try chores["Laundry"]?.value(forKey: "notes") == .null, sourceLocation: sourceLocation)
        #expect(try chores["Taxes"]?.value(forKey: "notes") == .string("April"), sourceLocation: sourceLocation)
        #expect(try chores["Dishes"]?.object("list")?.string("name") == "Home", sourceLocation: sourceLocation)
        #expect(try chores["Taxes"]?.object("list") == nil, sourceLocation: sourceLocation)
        let home = try #require(try context.keyedObjects("List", by: "name")["Home"], sourceLocation: sourceLocation)
        #expect(try home.objects("chores").map { try $0.string("label") ?? "" }.sorted() == ["Dishes", "Laundry"], sourceLocation: sourceLocation)
        for gone in ["Task", "Todo"] {
            #expect(throws: StrataError.self, sourceLocation: sourceLocation) { _ = try context.fetch(FetchRequest(entityName: gone)) }
        }
    }

    @Test(arguments: ["plan", "mappings"])
    func aV1StoreReachesV3ThroughTwoRenames(route: String) throws {
        let dir = try TemporaryDirectory("inferred-chain")
        defer { dir.remove() }
        let m = try Self.chain()
        try InferredStore.create(at: dir.path, model: m[0]) { try Self.fillChain($0) }
        let migration: StoreMigration = route == "plan"
            ? .plan(MigrationPlan(models: m, stages: [.lightweight(from: m[0], to: m[1]), .lightweight(from: m[1], to: m[2])]))
            : .mappings([try MappingModel.inferred(from: m[0], to: m[1]), try MappingModel.inferred(from: m[1], to: m[2])], models: [m[1], m[2]])
        try InferredStore.migrate(at: dir.path, to: m[2], with: migration) { try Self.expectChores($0) }
    }

    @Test func aV2StoreReachesV3ThroughTheSamePlan() throws {
        let dir = try TemporaryDirectory("inferred-chain-v2")
        defer { dir.remove() }
        let m = try Self.chain()
        try InferredStore.create(at: dir.path, model: m[0]) { try Self.fillChain($0) }
        try InferredStore.migrate(at: dir.path, to: m[1]) { context throws in
            #expect(try context.keyedObjects("Todo", by: "name").keys.sorted() == ["Dishes", "Laundry", "Taxes"])
            #expect(try context.keyedObjects("List", by: "name")["Home"]?.count("todos") == 2)
        }
        let plan = MigrationPlan(models: m, stages: [.lightweight(from: m[0], to: m[1]), .lightweight(from: m[1], to: m[2])])
        try InferredStore.migrate(at: dir.path, to: m[2], with: .plan(plan)) { try Self.expectChores($0) }
    }

    /// A plan whose second stage cannot be inferred is refused before its first stage
    /// writes anything.
    @Test func aPlanWithAnUninferableLaterStageWritesNothing() throws {
        let dir = try TemporaryDirectory("inferred-chain-refused")
        defer { dir.remove() }
        let m = try Self.chain()
        let v3 = try ObjectModel(version: "3") {
            Entity("List") {
                Attribute("name", .string)
                Relationship("todos", to: "Todo", inverse: "list", toMany: true)
            }
            Entity("Todo") {
                Attribute("name", .string)
                Attribute("notes", .string)
                Attribute("due", .date)
                Relationship("list", to: "List", inverse: "todos")
            }
        }
        try InferredStore.create(at: dir.path, model: m[0]) { try Self.fillChain($0) }
        let before = try DirectorySnapshot(dir.path)
        let plan = MigrationPlan(models: [m[0], m[1], v3], stages: [.lightweight(from: m[0], to: m[1]), .lightweight(from: m[1], to: v3)])
        let error = #expect(throws: StrataError.self) {
            _ = try ObjectStore(at: dir.path, model: v3, options: InferredStore.options(.plan(plan)))
        }
        #expect(error?.code == .migrationInferenceRefused)
        // Todo.notes (optional → non-optional without a default) is inferred.
        #expect(error?.message.contains("Todo.notes") == false, "\(String(describing: error))")
        #expect(error?.message.contains("Todo.due: new non-optional attribute without a default value") == true, "\(String(describing: error))")
        #expect(try DirectorySnapshot(dir.path) == before)
        let store = try ObjectStore(at: dir.path, model: m[0])
        defer { try? store.close() }
        #expect(try store.newContext().keyedObjects("Task", by: "title").keys.sorted() == ["Dishes", "Laundry", "Taxes"])
    }

    // MARK: Inheritance

    /// Pat is a plain Person; Eve and Ed are Employees.
    static func fillPeople(_ context: ObjectContext, badges: [String: String?] = [:], emails: [String: String?] = [:]) throws {
        for (name, entity) in [("Pat", "Person"), ("Eve", "Employee"), ("Ed", "Employee")] {
            let person = try context.insert(entity)
            try person.setValue(name, forKey: "name")
            if let badge = badges[name] { try person.setValue(badge, forKey: "badge") }
            if let email = emails[name] { try person.setValue(email, forKey: "email") }
            if entity == "Employee" { try person.setValue(name == "Eve" ? 10.0 : 20.0, forKey: "salary") }
        }
    }

    @Test func movingAnAttributeUpToTheParent() throws {
        let dir = try TemporaryDirectory("inferred-move-up")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") {
                Attribute("salary", .double, default: .double(0))
                Attribute("badge", .string, optional: true)
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("badge", .string, optional: true)
            }
            Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
        }
        try InferredStore.create(at: dir.path, model: v1) { try Self.fillPeople($0, badges: ["Eve": "E-1", "Ed": nil]) }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let people = try context.keyedObjects("Person", by: "name")
            #expect(people.keys.sorted() == ["Ed", "Eve", "Pat"])
            #expect(people["Pat"]?.entity.name == "Person")
            #expect(people["Eve"]?.entity.name == "Employee")
            #expect(try people["Eve"]?.value(forKey: "badge") == .string("E-1"))
            #expect(try people["Ed"]?.value(forKey: "badge") == .null)
            #expect(try people["Pat"]?.value(forKey: "badge") == .null)
            #expect(try people["Eve"]?.double("salary") == 10)
            #expect(try people["Ed"]?.double("salary") == 20)
        }
    }

    @Test func movingARequiredAttributeUpWithADefaultGivesTheParentsObjectsTheDefault() throws {
        let dir = try TemporaryDirectory("inferred-move-up-default")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") {
                Attribute("salary", .double, default: .double(0))
                Attribute("badge", .string)
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("badge", .string, default: .string("visitor"))
            }
            Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
        }
        try InferredStore.create(at: dir.path, model: v1) { try Self.fillPeople($0, badges: ["Eve": "E-1", "Ed": "E-2"]) }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let people = try context.keyedObjects("Person", by: "name")
            #expect(try people["Pat"]?.string("badge") == "visitor")
            #expect(try people["Eve"]?.string("badge") == "E-1")
            #expect(try people["Ed"]?.string("badge") == "E-2")
        }
    }

    @Test func movingAnAttributeDownToASubentity() throws {
        let dir = try TemporaryDirectory("inferred-move-down")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("email", .string, optional: true)
            }
            Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") {
                Attribute("salary", .double, default: .double(0))
                Attribute("email", .string, optional: true)
            }
        }
        try InferredStore.create(at: dir.path, model: v1) {
            try Self.fillPeople($0, emails: ["Pat": "pat@example.com", "Eve": "eve@example.com", "Ed": nil])
        }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let people = try context.keyedObjects("Person", by: "name")
            #expect(people.keys.sorted() == ["Ed", "Eve", "Pat"])
            #expect(try people["Eve"]?.value(forKey: "email") == .string("eve@example.com"))
            #expect(try people["Ed"]?.value(forKey: "email") == .null)
            #expect(try people["Eve"]?.double("salary") == 10)
            // A plain Person has no email any more.
            let error = #expect(throws: StrataError.self) { _ = try people["Pat"]?.value(forKey: "email") }
            #expect(error?.code == .unknownKeyPath)
        }
    }

    @Test func addingAParentEntityAboveExistingEntities() throws {
        let dir = try TemporaryDirectory("inferred-add-parent")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
            }
            Entity("Contractor") {
                Attribute("name", .string)
                Attribute("rate", .double, default: .double(0))
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person", abstract: true) { Attribute("name", .string) }
            Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
            Entity("Contractor", parent: "Person") { Attribute("rate", .double, default: .double(0)) }
        }
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            for (name, salary) in [("Eve", 10.0), ("Ed", 20.0)] {
                let employee = try context.insert("Employee")
                try employee.setValue(name, forKey: "name")
                try employee.setValue(salary, forKey: "salary")
            }
            let cy = try context.insert("Contractor")
            try cy.setValue("Cy", forKey: "name")
            try cy.setValue(99.5, forKey: "rate")
        }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let people = try context.fetch(FetchRequest(entityName: "Person", sortKeys: [.ascending("name")]))
            #expect(try people.map { try $0.string("name") } == ["Cy", "Ed", "Eve"])
            #expect(people.map(\.entity.name) == ["Contractor", "Employee", "Employee"])
            #expect(try people[0].double("rate") == 99.5)
            #expect(try people[1].double("salary") == 20)
            #expect(try people[2].double("salary") == 10)
            let found = try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "name == %@", "Cy")))
            #expect(found.map(\.entity.name) == ["Contractor"])
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 2)
        }
    }

    @Test func aRelationshipRetargetedToANewParentKeepsItsLinks() throws {
        let dir = try TemporaryDirectory("inferred-parent-relationship")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Employee") {
                Attribute("name", .string)
                Relationship("desk", to: "Desk", inverse: "owner")
            }
            Entity("Desk") {
                Attribute("label", .string)
                Relationship("owner", to: "Employee", inverse: "desk")
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person", abstract: true) {
                Attribute("name", .string)
                Relationship("desk", to: "Desk", inverse: "owner")
            }
            Entity("Employee", parent: "Person") {}
            Entity("Desk") {
                Attribute("label", .string)
                Relationship("owner", to: "Person", inverse: "desk")
            }
        }
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            let d1 = try context.insert("Desk")
            try d1.setValue("D1", forKey: "label")
            try context.insert("Desk").setValue("D2", forKey: "label")
            let eve = try context.insert("Employee")
            try eve.setValue("Eve", forKey: "name")
            try eve.setObject(d1, forKey: "desk")
            try context.insert("Employee").setValue("Ed", forKey: "name")
        }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let people = try context.keyedObjects("Person", by: "name")
            let desks = try context.keyedObjects("Desk", by: "label")
            #expect(people.keys.sorted() == ["Ed", "Eve"])
            #expect(try people["Eve"]?.object("desk")?.string("label") == "D1")
            #expect(try people["Ed"]?.object("desk") == nil)
            #expect(try desks["D1"]?.object("owner")?.string("name") == "Eve")
            #expect(try desks["D1"]?.object("owner")?.entity.name == "Employee")
            #expect(try desks["D2"]?.object("owner") == nil)
        }
    }

    // MARK: Changes together

    /// Int16 optional → Int64 non-optional with a default: converted, and nil becomes
    /// the default.
    @Test func aTypeChangeAndANewDefaultTogether() throws {
        let dir = try TemporaryDirectory("inferred-convert-default")
        defer { dir.remove() }
        let v2 = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("value", .int64, default: .int(1))
            }
        }
        try InferredStore.create(at: dir.path, model: try Self.typed("1", .int16)) { try Self.fillTyped($0, .int(-3)) }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(try tasks["set"]?.value(forKey: "value") == .int(-3))
            #expect(try tasks["unset"]?.value(forKey: "value") == .int(1))
        }
    }

    /// v1 → v2 → v3 in one plan: Int16 optional → Int32 default 1 → Double default 1,
    /// and an entity removed on the way.
    @Test func conversionsAndDefaultsChainThroughAPlan() throws {
        let dir = try TemporaryDirectory("inferred-convert-chain")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("value", .int16, optional: true)
            }
            Entity("Draft") { Attribute("text", .string) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("value", .int32, default: .int(1))
            }
            Entity("Draft") { Attribute("text", .string) }
        }
        let v3 = try ObjectModel(version: "3") {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("value", .double, default: .double(1))
            }
        }
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            try Self.fillTyped(context, .int(3))
            try context.insert("Draft").setValue("x", forKey: "text")
        }
        let plan = MigrationPlan(models: [v1, v2, v3], stages: [.lightweight(from: v1, to: v2), .lightweight(from: v2, to: v3)])
        try InferredStore.migrate(at: dir.path, to: v3, with: .plan(plan)) { context throws in
            let tasks = try context.keyedObjects("Task", by: "title")
            #expect(try tasks["set"]?.value(forKey: "value") == .double(3))
            #expect(try tasks["unset"]?.value(forKey: "value") == .double(1))
            #expect(throws: StrataError.self) { _ = try context.fetch(FetchRequest(entityName: "Draft")) }
        }
    }

    /// Renaming a parent entity: its sub-entity's objects and its own keep their values
    /// and are fetched through the new name.
    @Test func renamingAParentEntity() throws {
        let dir = try TemporaryDirectory("inferred-rename-parent")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Human") { Attribute("name", .string) }.renamed(from: "Person")
            Entity("Employee", parent: "Human") { Attribute("salary", .double, default: .double(0)) }
        }
        try InferredStore.create(at: dir.path, model: v1) { try Self.fillPeople($0) }
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let people = try context.keyedObjects("Human", by: "name")
            #expect(people.keys.sorted() == ["Ed", "Eve", "Pat"])
            #expect(people["Pat"]?.entity.name == "Human")
            #expect(people["Eve"]?.entity.name == "Employee")
            #expect(try people["Eve"]?.double("salary") == 10)
            #expect(try people["Ed"]?.double("salary") == 20)
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 2)
        }
    }

    /// A renamed external binary attribute keeps its bytes, carried by reference: the
    /// migration writes no blob bytes.
    @Test func renamingAnExternalBinaryAttributeKeepsItsBytes() throws {
        let dir = try TemporaryDirectory("inferred-rename-blob")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "1") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("photo", .binary, optional: true, externalStorage: true)
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("picture", .binary, optional: true, externalStorage: true).renamed(from: "photo")
            }
        }
        let photo = Data(LogFixtures.noise(40_000, seed: 7))
        try InferredStore.create(at: dir.path, model: v1) { context throws in
            let ada = try context.insert("Employee")
            try ada.setValue("Ada", forKey: "name")
            try ada.setValue(photo, forKey: "photo")
            try context.insert("Employee").setValue("Bob", forKey: "name")
        }
        let blobsBefore = try FileManager.default.subpathsOfDirectory(atPath: dir.appending("blobs")).sorted()
        #expect(!blobsBefore.isEmpty, "the photo went to the blob area")
        try InferredStore.migrate(at: dir.path, to: v2) { context throws in
            let employees = try context.keyedObjects("Employee", by: "name")
            #expect(try employees["Ada"]?.data("picture") == photo)
            #expect(try employees["Bob"]?.value(forKey: "picture") == .null)
        }
        let blobsAfter = try FileManager.default.subpathsOfDirectory(atPath: dir.appending("blobs")).sorted()
        #expect(blobsAfter == blobsBefore, "the blob file was carried by reference, not copied")
    }

    // MARK: Refusals

    /// One store-level refusal: the old model and what the store holds, the new model,
    /// exactly the problems the error lists.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var models: @Sendable () throws -> (ObjectModel, ObjectModel)
        var fill: @Sendable (ObjectContext) throws -> Void
        var check: @Sendable (ObjectContext) throws -> Void
        var problems: [String]
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "new and newly required relationships", models: {
            let v1 = try ObjectModel(version: "1") {
                Entity("Task") {
                    Attribute("title", .string)
                    Relationship("folder", to: "Folder", inverse: "tasks")
                }
                Entity("Folder") {
                    Attribute("name", .string)
                    Relationship("tasks", to: "Task", inverse: "folder", toMany: true)
                }
            }
            let v2 = try ObjectModel(version: "2") {
                Entity("Task") {
                    Attribute("title", .string)
                    Relationship("folder", to: "Folder", inverse: "tasks", optional: false)
                    Relationship("owner", to: "Person", inverse: "tasks", optional: false)
                }
                Entity("Folder") {
                    Attribute("name", .string)
                    Relationship("tasks", to: "Task", inverse: "folder", toMany: true)
                }
                Entity("Person") { Relationship("tasks", to: "Task", inverse: "owner", toMany: true) }
            }
            return (v1, v2)
        }, fill: { try fillFolders($0) }, check: { try expectFolderLinks($0) }, problems: [
            "Task.folder: optional → non-optional relationship; objects without a destination have nothing to relate to",
            "Task.owner: new non-optional relationship; existing objects have nothing to relate to",
        ]),
        Refusal(name: "to-many → to-one", models: {
            let v1 = try ObjectModel(version: "1") {
                Entity("Task") {
                    Attribute("title", .string)
                    Relationship("tags", to: "Tag", inverse: "tasks", toMany: true)
                }
                Entity("Tag") {
                    Attribute("label", .string)
                    Relationship("tasks", to: "Task", inverse: "tags", toMany: true)
                }
            }
            let v2 = try ObjectModel(version: "2") {
                Entity("Task") {
                    Attribute("title", .string)
                    Relationship("tags", to: "Tag", inverse: "tasks")
                }
                Entity("Tag") {
                    Attribute("label", .string)
                    Relationship("tasks", to: "Task", inverse: "tags", toMany: true)
                }
            }
            return (v1, v2)
        }, fill: { context throws in
            let task = try context.insert("Task")
            try task.setValue("a", forKey: "title")
            for label in ["red", "blue"] {
                let tag = try context.insert("Tag")
                try tag.setValue(label, forKey: "label")
                try task.add(tag, to: "tags")
            }
        }, check: { context throws in
            let task = try #require(try context.keyedObjects("Task", by: "title")["a"])
            #expect(try task.objects("tags").map { try $0.string("label") ?? "" }.sorted() == ["blue", "red"])
        }, problems: ["Task.tags: to-many → to-one would drop related objects"]),
        Refusal(name: "relationship renamed without identifier on one side", models: {
            let v2 = try ObjectModel(version: "2") {
                Entity("Folder") {
                    Attribute("name", .string)
                    Relationship("tasks", to: "Task", inverse: "container", toMany: true)
                }
                Entity("Task") {
                    Attribute("title", .string)
                    Relationship("container", to: "Folder", inverse: "tasks")
                }
            }
            return (try folders(version: "1"), v2)
        }, fill: { try fillFolders($0) }, check: { try expectFolderLinks($0) }, problems: [
            "Task.container: new relationship, but its inverse 'Folder.tasks' keeps the objects of "
                + "'Folder.tasks', whose inverse was 'folder': set renamingIdentifier \"folder\" if it was renamed",
        ]),
        Refusal(name: "attribute becomes a relationship", models: {
            let v1 = try ObjectModel(version: "1") {
                Entity("Task") {
                    Attribute("title", .string)
                    Attribute("folder", .string, optional: true)
                }
                Entity("Folder") { Attribute("name", .string) }
            }
            let v2 = try folders(version: "2")
            return (v1, v2)
        }, fill: { context throws in
            let task = try context.insert("Task")
            try task.setValue("a", forKey: "title")
            try task.setValue("Inbox", forKey: "folder")
            try context.insert("Folder").setValue("Inbox", forKey: "name")
        }, check: { context throws in
            #expect(try context.keyedObjects("Task", by: "title")["a"]?.string("folder") == "Inbox")
            #expect(try context.count(for: FetchRequest(entityName: "Folder")) == 1)
        }, problems: ["Task.folder: was the attribute 'Task.folder', is now a relationship"]),
        Refusal(name: "relationship becomes an attribute", models: {
            let v2 = try ObjectModel(version: "2") {
                Entity("Folder") { Attribute("name", .string) }
                Entity("Task") {
                    Attribute("title", .string)
                    Attribute("folder", .string, optional: true)
                }
            }
            return (try folders(version: "1"), v2)
        }, fill: { try fillFolders($0) }, check: { try expectFolderLinks($0) },
           problems: ["Task.folder: was the relationship 'Task.folder', is now an attribute"]),
        Refusal(name: "relationship destination changed", models: {
            let v1 = try ObjectModel(version: "1") {
                Entity("Task") {
                    Attribute("title", .string)
                    Relationship("place", to: "Folder", inverse: "tasks")
                }
                Entity("Folder") { Relationship("tasks", to: "Task", inverse: "place", toMany: true) }
                Entity("Box") { Relationship("tasks", to: "Task", toMany: true).withoutInverse() }
            }
            let v2 = try ObjectModel(version: "2") {
                Entity("Task") {
                    Attribute("title", .string)
                    Relationship("place", to: "Box", inverse: "tasks")
                }
                Entity("Folder") { Attribute("name", .string, optional: true) }
                Entity("Box") { Relationship("tasks", to: "Task", inverse: "place", toMany: true) }
            }
            return (v1, v2)
        }, fill: { context throws in
            let task = try context.insert("Task")
            try task.setValue("a", forKey: "title")
            try task.setObject(try context.insert("Folder"), forKey: "place")
        }, check: { context throws in
            let task = try #require(try context.keyedObjects("Task", by: "title")["a"])
            #expect(try task.object("place")?.entity.name == "Folder")
        }, problems: ["Task.place: destination 'Folder' changed to 'Box', but 'Folder' becomes 'Folder'"]),
        Refusal(name: "two entities claim one source", models: {
            let v1 = try ObjectModel(version: "1") { Entity("Task") { Attribute("title", .string) } }
            let v2 = try ObjectModel(version: "2") {
                Entity("Todo") { Attribute("title", .string) }.renamed(from: "Task")
                Entity("Chore") { Attribute("title", .string) }.renamed(from: "Task")
            }
            return (v1, v2)
        }, fill: { try $0.insert("Task").setValue("a", forKey: "title") }, check: { context throws in
            #expect(try context.keyedObjects("Task", by: "title").keys.sorted() == ["a"])
        }, problems: ["Todo: renaming identifier 'Task' names the entity 'Chore' also receives"]),
        Refusal(name: "two properties claim one source", models: {
            // One entity cannot declare a renaming identifier twice, but an inherited
            // property and a declared one can name the same source property.
            let v1 = try ObjectModel(version: "1") {
                Entity("Person") { Attribute("title", .string) }
                Entity("Employee", parent: "Person") {}
            }
            let v2 = try ObjectModel(version: "2") {
                Entity("Person") { Attribute("name", .string).renamed(from: "title") }
                Entity("Employee", parent: "Person") { Attribute("label", .string).renamed(from: "title") }
            }
            return (v1, v2)
        }, fill: { context throws in
            try context.insert("Person").setValue("Pat", forKey: "title")
            try context.insert("Employee").setValue("Eve", forKey: "title")
        }, check: { context throws in
            let people = try context.keyedObjects("Person", by: "title")
            #expect(people.keys.sorted() == ["Eve", "Pat"])
            #expect(people["Eve"]?.entity.name == "Employee")
        }, problems: [
            "Employee.label: renaming identifier 'title' names the property 'name' also receives",
            "Employee.label: new non-optional attribute without a default value",
        ]),
        Refusal(name: "entity becomes abstract", models: {
            let v1 = try ObjectModel(version: "1") {
                Entity("Person") { Attribute("name", .string) }
                Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
            }
            let v2 = try ObjectModel(version: "2") {
                Entity("Person", abstract: true) { Attribute("name", .string) }
                Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
            }
            return (v1, v2)
        }, fill: { try fillPeople($0) }, check: { context throws in
            let people = try context.keyedObjects("Person", by: "name")
            #expect(people.keys.sorted() == ["Ed", "Eve", "Pat"])
            #expect(people["Pat"]?.entity.name == "Person")
        }, problems: ["Person: became abstract; the objects of 'Person' would have no entity to become"]),
        Refusal(name: "required attribute moved up without a default", models: {
            let v1 = try ObjectModel(version: "1") {
                Entity("Person") { Attribute("name", .string) }
                Entity("Employee", parent: "Person") {
                    Attribute("salary", .double, default: .double(0))
                    Attribute("badge", .string)
                }
            }
            let v2 = try ObjectModel(version: "2") {
                Entity("Person") {
                    Attribute("name", .string)
                    Attribute("badge", .string)
                }
                Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
            }
            return (v1, v2)
        }, fill: { try fillPeople($0, badges: ["Eve": "E-1", "Ed": "E-2"]) }, check: { context throws in
            let people = try context.keyedObjects("Person", by: "name")
            #expect(try people["Eve"]?.string("badge") == "E-1")
            #expect(try people["Ed"]?.string("badge") == "E-2")
        }, problems: ["Person.badge: new non-optional attribute without a default value"]),
        Refusal(name: "inherited new required attribute, named once", models: {
            let v1 = try ObjectModel(version: "1") {
                Entity("Person") { Attribute("name", .string) }
                Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
                Entity("Manager", parent: "Employee") {}
            }
            let v2 = try ObjectModel(version: "2") {
                Entity("Person") {
                    Attribute("name", .string)
                    Attribute("born", .date)
                }
                Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
                Entity("Manager", parent: "Employee") {}
            }
            return (v1, v2)
        }, fill: { context throws in
            try fillPeople(context)
            try context.insert("Manager").setValue("Max", forKey: "name")
        }, check: { context throws in
            #expect(try context.keyedObjects("Person", by: "name").keys.sorted() == ["Ed", "Eve", "Max", "Pat"])
        }, problems: ["Person.born: new non-optional attribute without a default value"]),
        Refusal(name: "every problem at once (Tasks v1)", models: {
            let v2 = try ObjectModel(version: "2") {
                Entity("Task") {
                    Attribute("title", .int64)
                    Attribute("done", .bool, default: .bool(false))
                    Attribute("due", .date)
                    Attribute("priority", .int64, default: .int(0))
                    Attribute("latitude", .double)
                }
            }
            return (try ObjectModel(contentsOf: FixturePaths.model("Tasks-v1.json")), v2)
        }, fill: { context throws in
            let task = try context.insert("Task")
            try task.setValue("a", forKey: "title")
            try task.setValue("keep me", forKey: "notes")
        }, check: { context throws in
            #expect(try context.keyedObjects("Task", by: "title")["a"]?.string("notes") == "keep me")
        }, problems: [
            "Task.title: type change String → Int64 is not lossless",
            "Task.latitude: new non-optional attribute without a default value",
        ]),
    ]

    @Test(arguments: refusals)
    func aRefusalNamesEntityAndPropertyAndWritesNothing(_ refusal: Refusal) throws {
        let dir = try TemporaryDirectory("inferred-refusal")
        defer { dir.remove() }
        let (v1, v2) = try refusal.models()
        try InferredStore.create(at: dir.path, model: v1, fill: refusal.fill)
        try InferredStore.expectRefusal(at: dir.path, from: v1, to: v2, problems: refusal.problems, check: refusal.check)
        // The same refusal through a one-stage plan writes nothing either.
        let before = try DirectorySnapshot(dir.path)
        let plan = MigrationPlan(models: [v1, v2], stages: [.lightweight(from: v1, to: v2)])
        let error = #expect(throws: StrataError.self) {
            _ = try ObjectStore(at: dir.path, model: v2, options: InferredStore.options(.plan(plan)))
        }
        #expect(error?.code == .migrationInferenceRefused)
        for problem in refusal.problems {
            #expect(error?.message.contains(problem) == true, "\(String(describing: error))")
        }
        #expect(try DirectorySnapshot(dir.path) == before)
    }
}
