import Foundation
import Testing
import StrataTestSupport
import Strata

/// Scenario 3 on the committed stores: every format's `events-v1` opens with the v1
/// model holding exactly its timestamps, is refused by v2 without a migration, and
/// migrates by `EventComputedFieldsPolicy`, which computes day, month and memo.
@Suite struct EventsFixtureTests {
    /// Day and month written out by hand for the lines whose answer is easy to get
    /// wrong (a zone offset that crosses midnight, a leap day, before 1970), so the check
    /// does not rest only on the same calendar call the policy makes.
    static let known: [String: (day: Int, month: Int)] = [
        "2024-12-31T22:00:00-05:00": (1, 1),
        "2024-02-29T08:30:00Z": (29, 2),
        "2000-02-29T12:00:00Z": (29, 2),
        "1969-07-20T20:17:40Z": (20, 7),
        "2023-12-31T23:59:59Z": (31, 12),
    ]

    static func fixture(_ folder: String) -> FixtureStore {
        FixtureStore(folder: folder, name: "events-v1")
    }

    @Test(arguments: FixtureStore.formatFolders)
    func opensAtV1WithEveryTimestamp(folder: String) throws {
        let fixture = Self.fixture(folder)
        let lines = try fixture.lines()
        let v1 = try ObjectModel(contentsOf: FixturePaths.model("Events-v1.json"))
        try fixture.withCopy { path in
            let store = try ObjectStore(at: path, model: v1)
            defer { try? store.close() }
            try FixtureContents(lines: lines, keys: ["Event": "timeStamp"]).expectMatches(store.newContext(), model: v1)
            #expect(try store.verify().isSound)
        }
    }

    @Test(arguments: FixtureStore.formatFolders)
    func migratesToV2ComputingDayMonthAndMemo(folder: String) throws {
        let fixture = Self.fixture(folder)
        let lines = try fixture.lines()
        let dates = try lines.map { try #require(try $0.date("timeStamp"), "line \($0.number) has no timeStamp") }.sorted()
        let v1 = try ObjectModel(contentsOf: FixturePaths.model("Events-v1.json"))
        let v2 = try ObjectModel(contentsOf: FixturePaths.model("Events-v2.json"))
        try fixture.withCopy { path in
            let before = try DirectorySnapshot(path)
            let refusal = #expect(throws: StrataError.self) { _ = try ObjectStore(at: path, model: v2) }
            #expect(refusal?.code == .incompatibleModel)
            #expect(try DirectorySnapshot(path) == before, "a refused open leaves the store as it was")

            let mapping = MappingModel(from: v1, to: v2, entityMappings: [
                EntityMapping(name: "EventToEvent", kind: .custom, sourceEntityName: "Event", destinationEntityName: "Event",
                              policy: { EventComputedFieldsPolicy() }),
            ])
            var options = StoreOptions()
            options.migration = .mappings([mapping], models: [v2])
            options.migrationBatchSize = 5
            let store = try ObjectStore(at: path, model: v2, options: options)
            defer { try? store.close() }
            let context = store.newContext()
            let events = try context.fetch(FetchRequest(entityName: "Event", sortKeys: [.ascending("timeStamp")]))
            #expect(events.count == dates.count)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
            for (event, date) in zip(events, dates) {
                #expect(try event.date("timeStamp") == date)
                #expect(try event.int("day") == calendar.component(.day, from: date), "\(date)")
                #expect(try event.int("month") == calendar.component(.month, from: date), "\(date)")
                #expect(try event.string("memo") == EventComputedFieldsPolicy.greeting)
            }
            var checkedByHand = 0
            for line in lines {
                guard let text = line.string("timeStamp"), let (day, month) = Self.known[text] else { continue }
                checkedByHand += 1
                let date = try #require(try line.date("timeStamp"))
                let event = try #require(events.first { (try? $0.date("timeStamp")) == date }, "line \(line.number): \(text) is gone")
                #expect(try event.int("day") == day && event.int("month") == month, "line \(line.number): \(text)")
            }
            #expect(checkedByHand == Self.known.count, "the data file holds every timestamp worked out by hand")
            #expect(try store.verify().isSound)
        }
    }
}
