import Foundation
import Testing
import StrataTestSupport
import Strata

/// Scenario 5 on the committed stores: every format's `tasting-notes-v1` opens with the
/// v1 model holding exactly its data file, and the staged plans of
/// `TastingNotesPlanTests` (carrying the old notes from will- to did-migrate, or
/// streaming them) merge the four note kinds into the v2 family.
@Suite struct TastingNotesFixtureTests {
    static let keys = [
        "User": "name", "WineNote": "title", "CoffeeNote": "title", "WhiskeyNote": "title", "CocktailNote": "title",
    ]

    static func fixture(_ folder: String) -> FixtureStore {
        FixtureStore(folder: folder, name: "tasting-notes-v1")
    }

    @Test(arguments: FixtureStore.formatFolders)
    func opensAtV1WithEveryNote(folder: String) throws {
        let fixture = Self.fixture(folder)
        let lines = try fixture.lines()
        let (v1, _) = try TastingNotesPlanTests.models()
        try fixture.withCopy { path in
            let store = try ObjectStore(at: path, model: v1)
            defer { try? store.close() }
            try FixtureContents(lines: lines, keys: Self.keys).expectMatches(store.newContext(), model: v1)
            #expect(try store.verify().isSound)
        }
    }

    @Test(arguments: FixtureStore.formatFolders, ["carry", "stream"])
    func thePlanMergesTheNoteKinds(folder: String, style: String) throws {
        let fixture = Self.fixture(folder)
        let lines = try fixture.lines()
        let notes = lines.filter { TastingNotesPlanTests.kinds[$0.entity] != nil }
        // User name by @ref, as the notes' lines link them.
        var users: [String: String] = [:]
        for line in lines where line.entity == "User" {
            if let ref = line.ref, let name = line.string("name") { users[ref] = name }
        }
        let (v1, v2) = try TastingNotesPlanTests.models()
        try fixture.withCopy { path in
            var options = StoreOptions()
            options.migration = .plan(style == "carry"
                ? TastingNotesPlanTests.plan(v1, v2)
                : TastingNotesPlanTests.streamingPlan(v1, v2, batch: 2, largestOld: TastingNotesPlanTests.LargestCount()))
            let store = try ObjectStore(at: path, model: v2, options: options)
            defer { try? store.close() }
            let context = store.newContext()
            #expect(try context.count(for: FetchRequest(entityName: "TastingNote")) == notes.count)
            #expect(try context.count(for: FetchRequest(entityName: "User")) == users.count)

            // What the plans carry: the shared fields, each kind's required details, the
            // ingredients made from those details, and the user.
            for line in notes {
                let (entity, details) = try #require(TastingNotesPlanTests.kinds[line.entity])
                let title = try #require(line.string("title"))
                var request = FetchRequest(entityName: entity)
                request.predicate = try Predicate(format: "title == %@", title)
                let found = try context.fetch(request)
                #expect(found.count == 1, "line \(line.number): \(found.count) \(entity) titled \(title)")
                let note = try #require(found.first)
                let label = "line \(line.number): \(title)"
                let rating = try #require(v1.entity(named: line.entity)?.attributesByName["rating"])
                #expect(try note.value(forKey: "rating") == line.value(of: rating), "\(label)")
                #expect(try note.date("tastedAt") == line.date("tastedAt"), "\(label)")
                let values = details.map { line.string($0) ?? "" }
                for (key, value) in zip(details, values) { #expect(try note.string(key) == value, "\(label): \(key)") }
                let ingredients = try note.composite("ingredients", as: [TastingNotesPlanTests.Ingredient].self)
                #expect(ingredients == values.sorted().map { TastingNotesPlanTests.Ingredient(name: $0, amount: "1") }, "\(label)")
                let user = line.targets("user").first.flatMap { users[$0] }
                #expect(try note.object("user")?.string("name") == user, "\(label): user")
            }
            for user in try context.fetch(FetchRequest(entityName: "User")) {
                let name = try user.string("name")
                let ref = users.first { $0.value == name }?.key
                #expect(try user.count("notes") == notes.filter { $0.targets("user") == ref.map { [$0] } }.count, "\(name ?? "?")'s notes")
            }
            #expect(try store.verify().isSound)
        }
    }
}
