import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Scenario 3: v2 Events gain day, month and memo, computed by a policy that creates
/// each destination Event itself — responsible for every attribute it wants kept.
final class EventComputedFieldsPolicy: EntityMigrationPolicy, @unchecked Sendable {
    static let greeting = "Hello from the v2 migration"

    override func createDestinationInstances(forSource source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
        guard let timeStamp = try source.date("timeStamp") else { return }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.day, .month], from: timeStamp)
        let event = try manager.destinationContext.insert("Event")
        try event.setValue(timeStamp, forKey: "timeStamp")
        try event.setValue(parts.day, forKey: "day")
        try event.setValue(parts.month, forKey: "month")
        try event.setValue(Self.greeting, forKey: "memo")
        try manager.associate(sourceInstance: source, withDestinationInstance: event, for: mapping)
    }
}

@Suite struct EventsMigrationTests {
    static let dates = (0..<40).map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 86_400 * 9.5) }

    static func makeV1Store(at path: String) throws -> ObjectModel {
        let v1 = try ObjectModel(contentsOf: FixturePaths.model("Events-v1.json"))
        let store = try StoreUnderTest.open(at: path, model: v1)
        let context = store.newContext()
        for date in dates {
            let event = try context.insert("Event")
            try event.setValue(date, forKey: "timeStamp")
        }
        try context.save()
        try store.close()
        return v1
    }

    @Test func thePolicyComputesDayMonthAndMemo() throws {
        let dir = try TemporaryDirectory("events")
        defer { dir.remove() }
        let v1 = try Self.makeV1Store(at: dir.path)
        let v2 = try ObjectModel(contentsOf: FixturePaths.model("Events-v2.json"))
        var mapping = MappingModel(from: v1, to: v2, entityMappings: [
            EntityMapping(name: "EventToEvent", kind: .custom, sourceEntityName: "Event", destinationEntityName: "Event",
                          policy: { EventComputedFieldsPolicy() }),
        ])
        mapping.entityMappings[0].userInfo["note"] = .string("scenario 3")
        var options = StoreOptions()
        options.migration = .mappings([mapping], models: [v2])
        options.migrationBatchSize = 6
        let store = try StoreUnderTest.open(at: dir.path, model: v2, options: options)
        defer { try? store.close() }
        let context = store.newContext() // objects hold their context weakly: keep it
        let events = try context.fetch(FetchRequest(entityName: "Event", sortKeys: [.ascending("timeStamp")]))
        #expect(events.count == Self.dates.count)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        for (event, date) in zip(events, Self.dates) {
            #expect(try event.date("timeStamp") == date)
            #expect(try event.int("day") == calendar.component(.day, from: date))
            #expect(try event.int("month") == calendar.component(.month, from: date))
            #expect(try event.string("memo") == EventComputedFieldsPolicy.greeting)
        }
    }

    @Test func withoutMigrationTheV1StoreIsRefusedNamingBothHashes() throws {
        let dir = try TemporaryDirectory("events-incompatible")
        defer { dir.remove() }
        let v1 = try Self.makeV1Store(at: dir.path)
        let v2 = try ObjectModel(contentsOf: FixturePaths.model("Events-v2.json"))
        let before = try DirectorySnapshot(dir.path)
        let digestBefore = try StoreUnderTest.serverDigest(at: dir.path)
        let error = #expect(throws: StrataError.self) { _ = try StoreUnderTest.open(at: dir.path, model: v2) }
        #expect(error?.code == .incompatibleModel)
        #expect(error?.message.contains("the model used to open the store is incompatible with the one used to create the store") == true)
        #expect(error?.message.contains(v1.versionHash) == true)
        #expect(error?.message.contains(v2.versionHash) == true)
        #expect(try DirectorySnapshot(dir.path) == before, "never a silently emptied store")
        #expect(try StoreUnderTest.serverDigest(at: dir.path) == digestBefore, "the store on the server as it was")
    }

    @Test func inferredMigrationOfScenarioTwoReadsDefaults() throws {
        let dir = try TemporaryDirectory("tasks")
        defer { dir.remove() }
        let v1 = try ObjectModel(contentsOf: FixturePaths.model("Tasks-v1.json"))
        let v2 = try ObjectModel(contentsOf: FixturePaths.model("Tasks-v2-latitude.json"))
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: v1)
            let context = store.newContext()
            for i in 0..<25 {
                let task = try context.insert("Task")
                try task.setValue("Task \(i)", forKey: "title")
            }
            try context.save()
            try store.close()
        }
        var options = StoreOptions()
        options.migration = .inferred
        options.migrationBatchSize = 4
        let store = try StoreUnderTest.open(at: dir.path, model: v2, options: options)
        defer { try? store.close() }
        let context = store.newContext()
        let tasks = try context.fetch(FetchRequest(entityName: "Task", sortKeys: [.ascending("title")]))
        #expect(tasks.count == 25)
        for task in tasks {
            #expect(try task.double("latitude") ?? 0 == 0)
            #expect(try task.string("title")?.hasPrefix("Task ") == true)
        }
    }

    @Test func aRefusedInferenceWritesNothingAndNamesTheProperty() throws {
        let dir = try TemporaryDirectory("tasks-refused")
        defer { dir.remove() }
        let v1 = try ObjectModel(contentsOf: FixturePaths.model("Tasks-v1.json"))
        let v2 = try ObjectModel(contentsOf: FixturePaths.model("Tasks-v2-latitude-required-no-default.json"))
        try StoreUnderTest.open(at: dir.path, model: v1).close()
        let before = try DirectorySnapshot(dir.path)
        let digestBefore = try StoreUnderTest.serverDigest(at: dir.path)
        var options = StoreOptions()
        options.migration = .inferred
        let error = #expect(throws: StrataError.self) { _ = try StoreUnderTest.open(at: dir.path, model: v2, options: options) }
        #expect(error?.code == .migrationInferenceRefused)
        #expect(error?.context["entity"] == "Task" && error?.context["property"] == "latitude", "\(String(describing: error))")
        #expect(error?.message.contains("Task.latitude") == true)
        #expect(try DirectorySnapshot(dir.path) == before)
        #expect(try StoreUnderTest.serverDigest(at: dir.path) == digestBefore, "the store on the server as it was")
    }
}
