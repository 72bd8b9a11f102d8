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

            // What the plans carry: every field the v2 note shares with the v1 one (the
            // optional notes, photo and details among them), the ingredients made from
            // the details or a cocktail's recipe, and the user.
            for line in notes {
                let (entity, details) = try #require(TastingNotesPlanTests.kinds[line.entity])
                let title = try #require(line.string("title"))
                var request = FetchRequest(entityName: entity)
                request.predicate = try Predicate(format: "title == %@", title)
                let found = try context.fetch(request)
                #expect(found.count == 1, "line \(line.number): \(found.count) \(entity) titled \(title)")
                let note = try #require(found.first)
                let label = "line \(line.number): \(title)"
                let oldEntity = try #require(v1.entity(named: line.entity))
                let newEntity = try #require(v2.entity(named: entity))
                var carried = 0
                for attribute in oldEntity.storedAttributes where newEntity.attributesByName[attribute.name] != nil {
                    let actual = try note.value(forKey: attribute.name)
                    let wanted = try line.value(of: attribute)
                    #expect(actual == wanted, "\(label): \(attribute.name) is \(FixtureContents.short(actual)), expected \(FixtureContents.short(wanted))")
                    if wanted != .null { carried += 1 }
                }
                #expect(carried >= 4, "\(label): title, rating, tastedAt and a detail at least")
                let values = details.map { line.string($0) ?? "" }
                let recipe = try oldEntity.attributesByName["recipe"].map { try line.value(of: $0) }
                let ingredients = try note.composite("ingredients", as: [TastingNotesPlanTests.Ingredient].self)
                #expect(ingredients == TastingNotesPlanTests.ingredients(details: values, recipe: recipe), "\(label)")
                if case .string? = recipe { #expect((ingredients ?? []).allSatisfy { !$0.amount.isEmpty && !$0.name.isEmpty }, "\(label): \(ingredients)") }
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
