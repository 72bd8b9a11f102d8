import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Scenario 2 on real stores, with the committed Tasks models: a v1 store of a few
/// tasks (nil where it matters) is reopened with each v2 model and `.inferred`.
/// What inference allows migrates before the open returns and every task keeps every
/// value; what it refuses throws naming `Task.property` and why, before anything is
/// written, and the store still opens at v1 with its data.
@Suite struct TasksLightweightMigrationTests {
    struct OldTask: Sendable {
        var title: String
        var done: Bool
        var due: Date?
        var notes: String?
        var priority: Int
    }

    static let tasks = [
        OldTask(title: "Buy milk", done: false, due: Date(timeIntervalSince1970: 1_700_000_000), notes: "2 litres", priority: 1),
        OldTask(title: "Call Ada", done: true, due: nil, notes: nil, priority: 3),
        OldTask(title: "File taxes", done: false, due: Date(timeIntervalSince1970: 1_713_139_200.5), notes: nil, priority: 0),
        OldTask(title: "Water plants", done: true, due: Date(timeIntervalSince1970: 0), notes: "the fern too", priority: 2),
    ]
    /// The default of `due` in Tasks-v2-due-required-default.json: 2000-01-01T00:00:00Z.
    static let dueDefault = Date(timeIntervalSince1970: 946_684_800)

    static func model(_ name: String) throws -> ObjectModel {
        try ObjectModel(contentsOf: FixturePaths.model(name + ".json"))
    }

    /// A v1 store holding ``tasks``; returns the v1 model.
    @discardableResult
    static func makeV1Store(at path: String) throws -> ObjectModel {
        let v1 = try model("Tasks-v1")
        try InferredStore.create(at: path, model: v1) { context in
            for task in tasks {
                let object = try context.insert("Task")
                try object.setValue(task.title, forKey: "title")
                try object.setValue(task.done, forKey: "done")
                try object.setValue(task.due, forKey: "due")
                try object.setValue(task.notes, forKey: "notes")
                try object.setValue(task.priority, forKey: "priority")
            }
        }
        return v1
    }

    /// Every task of ``tasks`` is in `entity` with every value, the title under
    /// `titleKey`; `notes` is checked unless it was removed, `due` reads `due(task)`.
    static func expectTasks(
        in context: ObjectContext, entity: String = "Task", titleKey: String = "title", notes: Bool = true,
        due: (OldTask) -> Date? = { $0.due }, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let objects = try context.keyedObjects(entity, by: titleKey)
        #expect(objects.keys.sorted() == ["Buy milk", "Call Ada", "File taxes", "Water plants"], sourceLocation: sourceLocation)
        for task in tasks {
            let object = try #require(objects[task.title], sourceLocation: sourceLocation)
            #expect(object.entity.name == entity, sourceLocation: sourceLocation)
            #expect(try object.bool("done") == task.done, "\(task.title)", sourceLocation: sourceLocation)
            #expect(try object.value(forKey: "due") == (due(task).map(Value.date) ?? .null), "\(task.title)", sourceLocation: sourceLocation)
            if notes {
                #expect(try object.value(forKey: "notes") == (task.notes.map(Value.string) ?? .null), "\(task.title)", sourceLocation: sourceLocation)
            }
            #expect(try object.value(forKey: "priority") == .int(Int64(task.priority)), "\(task.title)", sourceLocation: sourceLocation)
        }
    }

    // MARK: What inference allows

    @Test(arguments: ["Tasks-v2-latitude", "Tasks-v2-latitude-required-default"])
    func addingLatitudeWithADefaultGivesOldTasksTheDefault(fixture: String) throws {
        let dir = try TemporaryDirectory("tasks-latitude")
        defer { dir.remove() }
        try Self.makeV1Store(at: dir.path)
        let v2 = try Self.model(fixture)
        try InferredStore.migrate(at: dir.path, to: v2) { context in
            try Self.expectTasks(in: context)
            for (title, task) in try context.keyedObjects("Task", by: "title") {
                // The default itself, not "no value" read as 0.
                #expect(try task.value(forKey: "latitude") == .double(0), "\(title)")
            }
        }
        // The migrated store takes new values: a new task starts at the default too.
        let store = try StoreUnderTest.open(at: dir.path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        let task = try context.insert("Task")
        try task.setValue("New", forKey: "title")
        #expect(try task.value(forKey: "latitude") == .double(0))
        try task.setValue(52.52, forKey: "latitude")
        try context.save()
        let fresh = store.newContext()
        let again = try #require(try fresh.keyedObjects("Task", by: "title")["New"])
        #expect(try again.double("latitude") == 52.52)
    }

    @Test func dueBecomingRequiredWithADefaultGivesTasksWithoutOneTheDefault() throws {
        let dir = try TemporaryDirectory("tasks-due")
        defer { dir.remove() }
        try Self.makeV1Store(at: dir.path)
        try InferredStore.migrate(at: dir.path, to: try Self.model("Tasks-v2-due-required-default")) { context in
            // Only "Call Ada" had no due date; the others keep theirs.
            try Self.expectTasks(in: context, due: { $0.due ?? Self.dueDefault })
            #expect(try context.keyedObjects("Task", by: "title")["Call Ada"]?.date("due") == Self.dueDefault)
        }
    }

    @Test func removingNotesKeepsEverythingElse() throws {
        let dir = try TemporaryDirectory("tasks-remove")
        defer { dir.remove() }
        try Self.makeV1Store(at: dir.path)
        try InferredStore.migrate(at: dir.path, to: try Self.model("Tasks-v2-remove-attribute")) { context in
            try Self.expectTasks(in: context, notes: false)
            let task = try #require(try context.keyedObjects("Task", by: "title")["Buy milk"])
            let error = #expect(throws: StrataError.self) { _ = try task.value(forKey: "notes") }
            #expect(error?.code == .unknownKeyPath)
        }
    }

    @Test func renamingTaskToTodoKeepsEveryValue() throws {
        let dir = try TemporaryDirectory("tasks-todo")
        defer { dir.remove() }
        try Self.makeV1Store(at: dir.path)
        try InferredStore.migrate(at: dir.path, to: try Self.model("Tasks-v2-rename-todo")) { context in
            try Self.expectTasks(in: context, entity: "Todo")
            let error = #expect(throws: StrataError.self) { _ = try context.fetch(FetchRequest(entityName: "Task")) }
            #expect(error?.code == .unknownKeyPath)
            #expect(try context.count(for: FetchRequest(entityName: "Todo", predicate: try Predicate(format: "done == %@", true))) == 2)
        }
    }

    @Test func renamingTitleToNameKeepsEveryValue() throws {
        let dir = try TemporaryDirectory("tasks-name")
        defer { dir.remove() }
        try Self.makeV1Store(at: dir.path)
        try InferredStore.migrate(at: dir.path, to: try Self.model("Tasks-v2-rename-title")) { context in
            try Self.expectTasks(in: context, titleKey: "name")
            let task = try #require(try context.keyedObjects("Task", by: "name")["Call Ada"])
            #expect(throws: StrataError.self) { _ = try task.value(forKey: "title") }
            let sorted = try context.fetch(FetchRequest(entityName: "Task", sortKeys: [.ascending("name")]))
            #expect(try sorted.map { try $0.string("name") } == ["Buy milk", "Call Ada", "File taxes", "Water plants"])
        }
    }

    // MARK: What inference refuses

    @Test func latitudeRequiredWithoutADefaultIsRefusedBeforeAnythingIsWritten() throws {
        let dir = try TemporaryDirectory("tasks-latitude-refused")
        defer { dir.remove() }
        let v1 = try Self.makeV1Store(at: dir.path)
        let v2 = try Self.model("Tasks-v2-latitude-required-no-default")
        let error = try InferredStore.expectRefusal(
            at: dir.path, from: v1, to: v2,
            problems: ["Task.latitude: new non-optional attribute without a default value"]
        ) { try Self.expectTasks(in: $0) }
        #expect(error?.context["entities"] == "Task")
        #expect(error?.context["sourceHash"] == v1.versionHash)
        #expect(error?.context["destinationHash"] == v2.versionHash)
    }

    /// Inferred at planning, and "Call Ada", the one task without a due date, fails
    /// the migration by name, the store unchanged.
    @Test func dueRequiredWithoutADefaultFailsForTheTaskWithoutOne() throws {
        let dir = try TemporaryDirectory("tasks-due-refused")
        defer { dir.remove() }
        let v1 = try Self.makeV1Store(at: dir.path)
        let ada = try {
            let store = try StoreUnderTest.open(at: dir.path, model: v1)
            defer { try? store.close() }
            return try #require(try store.newContext().keyedObjects("Task", by: "title")["Call Ada"]).objectID
        }()
        let before = try DirectorySnapshot(dir.path)
        let digestBefore = try StoreUnderTest.serverDigest(at: dir.path)
        let error = #expect(throws: StrataError.self) {
            try StoreUnderTest.open(at: dir.path, model: try Self.model("Tasks-v2-due-required-no-default"), options: InferredStore.options(.inferred))
        }
        #expect(error?.code == .migrationValidationFailed)
        #expect(error?.context["entity"] == "Task" && error?.context["property"] == "due")
        #expect(error?.context["object"] == ada.description)
        #expect(try DirectorySnapshot(dir.path) == before)
        #expect(try StoreUnderTest.serverDigest(at: dir.path) == digestBefore)
        let store = try StoreUnderTest.open(at: dir.path, model: v1)
        defer { try? store.close() }
        try Self.expectTasks(in: store.newContext())
    }

    /// A refusal is not final: after the refused open, the same store migrates with a
    /// model that gives the new attribute a default.
    @Test func aRefusedStoreMigratesLaterWithTheDefault() throws {
        let dir = try TemporaryDirectory("tasks-refused-then-migrated")
        defer { dir.remove() }
        let v1 = try Self.makeV1Store(at: dir.path)
        try InferredStore.expectRefusal(
            at: dir.path, from: v1, to: try Self.model("Tasks-v2-latitude-required-no-default"),
            problems: ["Task.latitude: new non-optional attribute without a default value"]
        ) { try Self.expectTasks(in: $0) }
        try InferredStore.migrate(at: dir.path, to: try Self.model("Tasks-v2-latitude-required-default")) { context in
            try Self.expectTasks(in: context)
            #expect(try context.keyedObjects("Task", by: "title")["Call Ada"]?.value(forKey: "latitude") == .double(0))
        }
    }

    // MARK: No migration asked

    static let v2Fixtures = [
        "Tasks-v2-latitude", "Tasks-v2-latitude-required-default", "Tasks-v2-latitude-required-no-default",
        "Tasks-v2-due-required-default", "Tasks-v2-due-required-no-default", "Tasks-v2-remove-attribute",
        "Tasks-v2-rename-todo", "Tasks-v2-rename-title",
    ]

    @Test(StoreUnderTest.engineSpecific, arguments: v2Fixtures)
    func withoutMigrationAV2ModelIsIncompatibleAndNothingChanges(fixture: String) throws {
        let dir = try TemporaryDirectory("tasks-incompatible")
        defer { dir.remove() }
        let v1 = try Self.makeV1Store(at: dir.path)
        let v2 = try Self.model(fixture)
        #expect(v1.versionHash != v2.versionHash)
        let before = try DirectorySnapshot(dir.path)
        let digestBefore = try StoreUnderTest.serverDigest(at: dir.path)
        let error = #expect(throws: StrataError.self) { _ = try StoreUnderTest.open(at: dir.path, model: v2) }
        #expect(error?.code == .incompatibleModel)
        #expect(error?.message.contains("the model used to open the store is incompatible with the one used to create the store") == true)
        #expect(error?.message.contains(v1.versionHash) == true)
        #expect(error?.message.contains(v2.versionHash) == true)
        #expect(error?.context["storeHash"] == v1.versionHash)
        #expect(error?.context["modelHash"] == v2.versionHash)
        #expect(try DirectorySnapshot(dir.path) == before)
        #expect(try StoreUnderTest.serverDigest(at: dir.path) == digestBefore)
        let store = try StoreUnderTest.open(at: dir.path, model: v1)
        defer { try? store.close() }
        try Self.expectTasks(in: store.newContext())
    }
}
