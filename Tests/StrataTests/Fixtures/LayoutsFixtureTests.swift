import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// `tasks-layouts`, committed from format 3 on (Fixtures/stores/README.md): a store
/// taken through two lightweight stages in place, holding records of three layouts,
/// some compacted. Every later release must read each layout forward, and compact and
/// migrate the store.
@Suite struct LayoutsFixtureTests {
    static var folders: [String] {
        FixtureStore.formatFolders.filter { (FixtureStore.formatVersion(ofFolder: $0) ?? 0) >= 3 }
    }

    static func models() throws -> [ObjectModel] {
        try ["Tasks-v1.json", "Tasks-layouts-v2.json", "Tasks-layouts-v3.json"].map { try ObjectModel(contentsOf: FixturePaths.model($0)) }
    }

    /// Every task the data file lists, read at v3, and nothing else.
    static func check(_ store: ObjectStore, against fixture: FixtureStore) throws {
        let context = store.newContext()
        let tasks = try context.fetch(FetchRequest(entityName: "Task"))
        let lines = try fixture.lines()
        #expect(tasks.count == lines.count, "\(fixture)")
        var byName: [String: ManagedObject] = [:]
        for task in tasks { byName[try task.string("name") ?? ""] = task }
        for line in lines {
            guard case .string(let name)? = line.fields["name"], let task = byName[name] else {
                Issue.record("\(fixture):\(line.number): no task of that name")
                continue
            }
            guard case .bool(let done)? = line.fields["done"], case .integer(let priority)? = line.fields["priority"],
                  case .integer(let effort)? = line.fields["effort"] else {
                Issue.record("\(fixture):\(line.number): malformed line")
                continue
            }
            #expect(try task.value(forKey: "done") == .bool(done), "\(name)")
            #expect(try task.value(forKey: "priority") == .int(priority), "\(name)")
            #expect(try task.value(forKey: "effort") == .int(effort), "\(name)")
            if case .string(let tag)? = line.fields["tag"] {
                #expect(try task.value(forKey: "tag") == .string(tag), "\(name)")
            } else {
                #expect(try task.value(forKey: "tag") == .null, "\(name)")
            }
        }
        // A compiled query over every layout: effort was added at v2 with default 1.
        let easy = try context.count(for: FetchRequest(entityName: "Task", predicate: .key("effort") == .constant(.int(1))))
        #expect(easy == lines.filter { if case .integer(1)? = $0.fields["effort"] { true } else { false } }.count)
    }

    @Test(arguments: Self.folders)
    func readsEveryLayoutReadOnlyWritingNothing(folder: String) throws {
        let fixture = FixtureStore(folder: folder, name: "tasks-layouts")
        let before = try DirectorySnapshot(fixture.path)
        var options = StoreOptions()
        options.log.readOnly = true
        options.log.createIfMissing = false
        let store = try ObjectStore(at: fixture.path, model: try Self.models()[2], options: options)
        let table = try LayoutTable.decode(try #require(store.records.metadata[LayoutTable.metadataKey]))
        #expect(table.entities["Task"]?.layouts.map(\.id) == [1, 2, 3])
        try Self.check(store, against: fixture)
        #expect(try store.verify().isSound)
        try store.close()
        #expect(try DirectorySnapshot(fixture.path) == before)
    }

    @Test(arguments: Self.folders)
    func compactsAndMigratesByRewriting(folder: String) throws {
        let fixture = FixtureStore(folder: folder, name: "tasks-layouts")
        let m = try Self.models()
        try fixture.withCopy { path in
            do {
                let store = try ObjectStore(at: path, model: m[2])
                let log = try #require(store.records as? LogStore)
                try log.sealActiveSegment()
                try log.compact(force: true)
                try store.close()
            }
            do {
                let store = try ObjectStore(at: path, model: m[2])
                try Self.check(store, against: fixture)
                try store.close()
            }
            // v4: name unique, which the data is checked against by a scan that writes
            // nothing; then its terms are built on the records of every layout.
            var entities = m[2].entities
            entities[0].declaredProperties = entities[0].declaredProperties.map { property in
                guard case .attribute(var attribute) = property, attribute.name == "name" else { return property }
                attribute.isUnique = true
                return .attribute(attribute)
            }
            let v4 = try ObjectModel(version: "layouts-4", entities: entities)
            // v5: the rule dropped again (name only indexed), which the streaming rewrite
            // does (no rule's terms left behind).
            entities = m[2].entities
            entities[0].declaredProperties = entities[0].declaredProperties.map { property in
                guard case .attribute(var attribute) = property, attribute.name == "name" else { return property }
                attribute.isIndexed = true
                return .attribute(attribute)
            }
            let v5 = try ObjectModel(version: "layouts-5", entities: entities)
            let stages: [MigrationStage] = [
                .lightweight(from: m[0], to: m[1]), .lightweight(from: m[1], to: m[2]), .lightweight(from: m[2], to: v4),
                .lightweight(from: v4, to: v5),
            ]
            for (model, passes) in [(v4, [MigrationProgress.Pass.inPlace, .swap]), (v5, [.createInstances])] {
                var options = StoreOptions()
                options.migration = .plan(model == v4 ? MigrationPlan(models: m + [v4], stages: Array(stages.prefix(3))) : MigrationPlan(models: m + [v4, v5], stages: stages))
                let progress = ProgressLog()
                options.migrationProgress = { progress.append($0) }
                let store = try ObjectStore(at: path, model: model, options: options)
                #expect(passes.allSatisfy(progress.passes.contains), "\(model.versionIdentifier): \(progress.passes)")
                try Self.check(store, against: fixture)
                let found = try store.newContext().fetch(FetchRequest(entityName: "Task", predicate: .key("name") == .constant(.string("v1 task 0"))))
                #expect(found.count == 1)
                if model == v4 {
                    // The rule holds for the objects of every layout: a twin is refused.
                    let context = store.newContext()
                    let twin = try context.insert("Task")
                    try twin.setValue("v1 task 0", forKey: "name")
                    let error = #expect(throws: StrataError.self) { try context.save() }
                    #expect(error?.context["properties"] == "name" && error?.context["value"] == "\"v1 task 0\"", "\(String(describing: error))")
                    context.rollback()
                }
                try store.close()
            }
        }
    }

    /// A store of an older format, which any write upgrades, is checked before anything
    /// is written: a new uniqueness rule its data breaks (several tasks share a
    /// priority) leaves it at its format, holding what it held.
    @Test(arguments: Self.folders.filter { (FixtureStore.formatVersion(ofFolder: $0) ?? 0) < Format.version })
    func aDuplicateLeavesAnOlderFormatUnwritten(folder: String) throws {
        let fixture = FixtureStore(folder: folder, name: "tasks-layouts")
        let text = try String(contentsOf: FixturePaths.model("Tasks-layouts-v3.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"version\": \"layouts-3\"", with: "\"version\": \"layouts-3-unique\"")
            .replacingOccurrences(of: "\"name\": \"priority\",", with: "\"name\": \"priority\",\n          \"unique\": true,")
        let unique = try ObjectModel(jsonData: Data(text.utf8))
        #expect(unique.entity(named: "Task")?.attributesByName["priority"]?.isUnique == true)
        try fixture.withCopy { path in
            let before = try StoreContents(path)
            #expect(before.formatVersion < Format.version)
            var options = StoreOptions()
            options.migration = .inferred
            let error = #expect(throws: StrataError.self) { try ObjectStore(at: path, model: unique, options: options) }
            #expect(error?.code == .uniquenessViolation, "\(String(describing: error))")
            #expect(try StoreContents(path) == before)
        }
    }
}
