import Foundation
import StrataData
import StrataTestSupport
import Testing

/// Scenario 5 in typed form: v1 has four note models with duplicated fields; v2 has
/// four tasting-note models with the shared fields and an ingredients list. One custom
/// stage: willMigrate reads the old notes and returns them in a `MigrationCarry`;
/// didMigrate receives that carry and inserts the new notes. An error in either hook
/// stops the migration and leaves the store at v1, byte for byte.
enum NotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [User.self, WineNote.self, CoffeeNote.self, WhiskeyNote.self, CocktailNote.self] }

    @Model final class User {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class WineNote {
        var title: String
        var rating: Int = 0
        var tastedAt: Date = Date(timeIntervalSince1970: 0)
        var notes: String?
        var winery: String = ""
        var grape: String = ""
        var user: User?
        init(title: String) { self.title = title }
    }

    @Model final class CoffeeNote {
        var title: String
        var rating: Int = 0
        var tastedAt: Date = Date(timeIntervalSince1970: 0)
        var notes: String?
        var roaster: String = ""
        var user: User?
        init(title: String) { self.title = title }
    }

    @Model final class WhiskeyNote {
        var title: String
        var rating: Int = 0
        var tastedAt: Date = Date(timeIntervalSince1970: 0)
        var notes: String?
        var distillery: String = ""
        var user: User?
        init(title: String) { self.title = title }
    }

    @Model final class CocktailNote {
        var title: String
        var rating: Int = 0
        var tastedAt: Date = Date(timeIntervalSince1970: 0)
        var notes: String?
        var recipe: String = ""
        var user: User?
        init(title: String) { self.title = title }
    }
}

struct Ingredient: Codable, Equatable, Sendable {
    var name: String
    var amount: String
}

enum NotesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] {
        [User.self, WineTastingNote.self, CoffeeTastingNote.self, WhiskeyTastingNote.self, CocktailTastingNote.self]
    }

    @Model final class User {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class WineTastingNote {
        var title: String
        var rating: Int = 0
        var tastedAt: Date = Date(timeIntervalSince1970: 0)
        var notes: String?
        var ingredients: [Ingredient] = []
        var user: User?
        init(title: String) { self.title = title }
    }

    @Model final class CoffeeTastingNote {
        var title: String
        var rating: Int = 0
        var tastedAt: Date = Date(timeIntervalSince1970: 0)
        var notes: String?
        var ingredients: [Ingredient] = []
        var user: User?
        init(title: String) { self.title = title }
    }

    @Model final class WhiskeyTastingNote {
        var title: String
        var rating: Int = 0
        var tastedAt: Date = Date(timeIntervalSince1970: 0)
        var notes: String?
        var ingredients: [Ingredient] = []
        var user: User?
        init(title: String) { self.title = title }
    }

    @Model final class CocktailTastingNote {
        var title: String
        var rating: Int = 0
        var tastedAt: Date = Date(timeIntervalSince1970: 0)
        var notes: String?
        var ingredients: [Ingredient] = []
        var user: User?
        init(title: String) { self.title = title }
    }
}

/// What willMigrate hands to didMigrate: plain values, not models of the old store.
struct CarriedNote: Sendable {
    var kind: String
    var title: String
    var rating: Int
    var tastedAt: Date
    var notes: String?
    var ingredients: [Ingredient]
    var user: String?
}

struct NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] { [stage(failIn: nil)] }

    static func stage(failIn hook: String?) -> MigrationStage {
        .custom(fromVersion: NotesV1.self, toVersion: NotesV2.self, willMigrate: { old in
            if hook == "will" { throw StrataError(.migrationFailed, "willMigrate refused") }
            var notes: [CarriedNote] = []
            for note in try old.fetch(FetchDescriptor<NotesV1.WineNote>()) {
                notes.append(CarriedNote(kind: "wine", title: note.title, rating: note.rating, tastedAt: note.tastedAt, notes: note.notes,
                                         ingredients: [Ingredient(name: note.grape, amount: "1"), Ingredient(name: note.winery, amount: "1")],
                                         user: note.user?.name))
            }
            for note in try old.fetch(FetchDescriptor<NotesV1.CoffeeNote>()) {
                notes.append(CarriedNote(kind: "coffee", title: note.title, rating: note.rating, tastedAt: note.tastedAt, notes: note.notes,
                                         ingredients: [Ingredient(name: note.roaster, amount: "1")], user: note.user?.name))
            }
            for note in try old.fetch(FetchDescriptor<NotesV1.WhiskeyNote>()) {
                notes.append(CarriedNote(kind: "whiskey", title: note.title, rating: note.rating, tastedAt: note.tastedAt, notes: note.notes,
                                         ingredients: [Ingredient(name: note.distillery, amount: "1")], user: note.user?.name))
            }
            for note in try old.fetch(FetchDescriptor<NotesV1.CocktailNote>()) {
                let ingredients = note.recipe.split(separator: ",").map { part in
                    let words = part.split(separator: " ")
                    return Ingredient(name: words.dropFirst(2).joined(separator: " "), amount: words.prefix(2).joined(separator: " "))
                }
                notes.append(CarriedNote(kind: "cocktail", title: note.title, rating: note.rating, tastedAt: note.tastedAt, notes: note.notes,
                                         ingredients: ingredients, user: note.user?.name))
            }
            var carry = MigrationCarry()
            carry.set(notes, for: "notes")
            return carry
        }, didMigrate: { new, carry in
            if hook == "did" { throw StrataError(.migrationFailed, "didMigrate refused") }
            let users = try new.fetch(FetchDescriptor<NotesV2.User>())
            func user(_ name: String?) -> NotesV2.User? { users.first { $0.name == name } }
            for old in carry.value(for: "notes", as: [CarriedNote].self) ?? [] {
                switch old.kind {
                case "wine":
                    let note = NotesV2.WineTastingNote(title: old.title)
                    note.rating = old.rating; note.tastedAt = old.tastedAt; note.notes = old.notes; note.ingredients = old.ingredients
                    note.user = user(old.user)
                    new.insert(note)
                case "coffee":
                    let note = NotesV2.CoffeeTastingNote(title: old.title)
                    note.rating = old.rating; note.tastedAt = old.tastedAt; note.notes = old.notes; note.ingredients = old.ingredients
                    note.user = user(old.user)
                    new.insert(note)
                case "whiskey":
                    let note = NotesV2.WhiskeyTastingNote(title: old.title)
                    note.rating = old.rating; note.tastedAt = old.tastedAt; note.notes = old.notes; note.ingredients = old.ingredients
                    note.user = user(old.user)
                    new.insert(note)
                default:
                    let note = NotesV2.CocktailTastingNote(title: old.title)
                    note.rating = old.rating; note.tastedAt = old.tastedAt; note.notes = old.notes; note.ingredients = old.ingredients
                    note.user = user(old.user)
                    new.insert(note)
                }
            }
        })
    }
}

struct FailingWillPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] { [NotesPlan.stage(failIn: "will")] }
}

struct FailingDidPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] { [NotesPlan.stage(failIn: "did")] }
}

/// The same merge as a streaming stage: didMigrate walks the old store in batches of two
/// (`enumerate(_:batchSize:)`) instead of carrying every note.
struct StreamingNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] {
        [.customStreaming(fromVersion: NotesV1.self, toVersion: NotesV2.self, willMigrate: nil, didMigrate: { new, old, _ in
            let users = try new.fetch(FetchDescriptor<NotesV2.User>())
            func user(_ name: String?) -> NotesV2.User? { users.first { $0.name == name } }
            try old.enumerate(FetchDescriptor<NotesV1.WineNote>(), batchSize: 2) { wine in
                let note = NotesV2.WineTastingNote(title: wine.title)
                note.rating = wine.rating; note.notes = wine.notes; note.user = user(wine.user?.name)
                note.ingredients = [Ingredient(name: wine.grape, amount: "1"), Ingredient(name: wine.winery, amount: "1")]
                new.insert(note)
            }
            try old.enumerate(FetchDescriptor<NotesV1.CoffeeNote>(), batchSize: 2) { coffee in
                let note = NotesV2.CoffeeTastingNote(title: coffee.title)
                note.rating = coffee.rating; note.user = user(coffee.user?.name)
                note.ingredients = [Ingredient(name: coffee.roaster, amount: "1")]
                new.insert(note)
            }
            try old.enumerate(FetchDescriptor<NotesV1.WhiskeyNote>(), batchSize: 2) { whiskey in
                let note = NotesV2.WhiskeyTastingNote(title: whiskey.title)
                note.rating = whiskey.rating; note.user = user(whiskey.user?.name)
                note.ingredients = [Ingredient(name: whiskey.distillery, amount: "1")]
                new.insert(note)
            }
            try old.enumerate(FetchDescriptor<NotesV1.CocktailNote>(), batchSize: 2) { cocktail in
                let note = NotesV2.CocktailTastingNote(title: cocktail.title)
                note.rating = cocktail.rating; note.user = user(cocktail.user?.name)
                new.insert(note)
            }
        })]
    }
}

@Suite struct TypedTastingNotesPlanTests {
    static func makeV1(_ url: URL) throws {
        let container = try ModelContainer(for: try NotesV1.schema(), configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        let mara = NotesV1.User(name: "Mara")
        context.insert(mara)
        for i in 0..<3 {
            let wine = NotesV1.WineNote(title: "Wine \(i)")
            wine.rating = i + 1; wine.winery = "winery \(i)"; wine.grape = "grape \(i)"; wine.user = mara
            wine.notes = i == 0 ? "oaky" : nil
            let coffee = NotesV1.CoffeeNote(title: "Coffee \(i)")
            coffee.rating = i + 1; coffee.roaster = "roaster \(i)"; coffee.user = mara
            let whiskey = NotesV1.WhiskeyNote(title: "Whiskey \(i)")
            whiskey.rating = i + 1; whiskey.distillery = "distillery \(i)"; whiskey.user = mara
            let cocktail = NotesV1.CocktailNote(title: "Cocktail \(i)")
            cocktail.rating = i + 1; cocktail.recipe = "30 ml gin,15 ml lime juice"; cocktail.user = mara
            for note in [wine, coffee, whiskey, cocktail] as [any PersistentModel] { context.insert(note) }
        }
        try context.save()
        try container.close()
    }

    @Test func theStagedPlanMergesTheNoteKinds() throws {
        let dir = try TemporaryDirectory("typed-tasting")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        try Self.makeV1(url)
        let container = try ModelContainer(for: try NotesV2.schema(), migrationPlan: NotesPlan.self, configurations: [ModelConfiguration(url: url)])
        defer { try? container.close() }
        let context = ModelContext(container)
        let wines = try context.fetch(FetchDescriptor<NotesV2.WineTastingNote>(sortBy: [SortDescriptor(\.title)]))
        #expect(wines.map(\.title) == ["Wine 0", "Wine 1", "Wine 2"])
        #expect(wines.map(\.rating) == [1, 2, 3])
        #expect(wines[0].notes == "oaky" && wines[1].notes == nil)
        #expect(wines[0].ingredients == [Ingredient(name: "grape 0", amount: "1"), Ingredient(name: "winery 0", amount: "1")])
        #expect(wines.allSatisfy { $0.user?.name == "Mara" })
        #expect(try context.fetchCount(FetchDescriptor<NotesV2.CoffeeTastingNote>()) == 3)
        #expect(try context.fetchCount(FetchDescriptor<NotesV2.WhiskeyTastingNote>()) == 3)
        let cocktail = try #require(try context.fetch(FetchDescriptor<NotesV2.CocktailTastingNote>()).first)
        #expect(cocktail.ingredients == [Ingredient(name: "gin", amount: "30 ml"), Ingredient(name: "lime juice", amount: "15 ml")])
        #expect(try context.fetchCount(FetchDescriptor<NotesV2.User>()) == 1)
    }

    @Test func aStreamingStageWalksTheOldNotesInBatches() throws {
        let dir = try TemporaryDirectory("typed-tasting-stream")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        try Self.makeV1(url)
        let container = try ModelContainer(for: try NotesV2.schema(), migrationPlan: StreamingNotesPlan.self, configurations: [ModelConfiguration(url: url)])
        defer { try? container.close() }
        let context = ModelContext(container)
        let wines = try context.fetch(FetchDescriptor<NotesV2.WineTastingNote>(sortBy: [SortDescriptor(\.title)]))
        #expect(wines.map(\.title) == ["Wine 0", "Wine 1", "Wine 2"])
        #expect(wines.map(\.rating) == [1, 2, 3])
        #expect(wines[0].notes == "oaky")
        #expect(wines[2].ingredients == [Ingredient(name: "grape 2", amount: "1"), Ingredient(name: "winery 2", amount: "1")])
        #expect(wines.allSatisfy { $0.user?.name == "Mara" })
        #expect(try context.fetchCount(FetchDescriptor<NotesV2.CoffeeTastingNote>()) == 3)
        #expect(try context.fetchCount(FetchDescriptor<NotesV2.WhiskeyTastingNote>()) == 3)
        #expect(try context.fetchCount(FetchDescriptor<NotesV2.CocktailTastingNote>()) == 3)
    }

    @Test(arguments: ["will", "did"])
    func anErrorInAHookLeavesTheStoreAtV1ByteForByte(hook: String) throws {
        let dir = try TemporaryDirectory("typed-tasting-fail")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        try Self.makeV1(url)
        let before = try DirectorySnapshot(dir.path)
        let plan: any SchemaMigrationPlan.Type = hook == "will" ? FailingWillPlan.self : FailingDidPlan.self
        let error = #expect(throws: StrataError.self) {
            _ = try ModelContainer(for: try NotesV2.schema(), migrationPlan: plan, configurations: [ModelConfiguration(url: url)])
        }
        #expect(error?.message.contains("\(hook)Migrate refused") == true, "the hook's error reaches the caller")
        #expect(try DirectorySnapshot(dir.path) == before)
        let container = try ModelContainer(for: try NotesV1.schema(), configurations: [ModelConfiguration(url: url)])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV1.WineNote>()) == 3)
        try container.close()
    }
}
