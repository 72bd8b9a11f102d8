import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Scenario 5: a staged plan with one custom stage merges four note entities into a
/// family of v2 notes. willMigrate reads the old notes and hands them to didMigrate
/// explicitly; an error in either hook stops the migration, is never swallowed, and
/// leaves the store at v1 byte for byte.
@Suite struct TastingNotesPlanTests {
    struct OldNote: Sendable {
        var kind: String
        var title: String
        var rating: Int
        var tastedAt: Date
        var user: String
        var details: [String: String]
        /// Every attribute the v2 note has too, optional ones included (notes, photo,
        /// vintage…): a merge that dropped them would lose what users wrote.
        var shared: [String: Value]
        var recipe: Value?
    }

    struct Ingredient: Codable, Equatable, Sendable {
        var name: String
        var amount: String
    }

    /// Old entity → new entity and the required detail attributes both share.
    static let kinds: [String: (String, [String])] = [
        "WineNote": ("WineTastingNote", ["winery", "grape"]), "CoffeeNote": ("CoffeeTastingNote", ["roaster"]),
        "WhiskeyNote": ("WhiskeyTastingNote", ["distillery"]), "CocktailNote": ("CocktailTastingNote", ["baseSpirit"]),
    ]

    static func models() throws -> (ObjectModel, ObjectModel) {
        (try ObjectModel(contentsOf: FixturePaths.model("TastingNotes-v1.json")), try ObjectModel(contentsOf: FixturePaths.model("TastingNotes-v2.json")))
    }

    static func makeV1(at path: String, v1: ObjectModel) throws {
        let store = try StoreUnderTest.open(at: path, model: v1)
        let context = store.newContext()
        let user = try context.insert("User")
        try user.setValue("Mara", forKey: "name")
        for (old, (_, details)) in kinds.sorted(by: { $0.key < $1.key }) {
            for i in 0..<3 {
                let note = try context.insert(old)
                try note.setValue("\(old) \(i)", forKey: "title")
                try note.setValue(i + 1, forKey: "rating")
                try note.setValue(Date(timeIntervalSince1970: Double(1_700_000_000 + i)), forKey: "tastedAt")
                for detail in details { try note.setValue("\(detail) \(i)", forKey: detail) }
                try note.setObject(user, forKey: "user")
            }
        }
        try context.save()
        try store.close()
    }

    static func plan(_ v1: ObjectModel, _ v2: ObjectModel, failIn hook: String? = nil) -> MigrationPlan {
        MigrationPlan(models: [v1, v2], stages: [
            .custom(from: v1, to: v2, willMigrate: { old in
                if hook == "will" { throw StrataError(.migrationFailed, "willMigrate refused") }
                var notes: [OldNote] = []
                for (entity, (_, details)) in kinds {
                    for note in try old.fetch(FetchRequest(entityName: entity)) {
                        notes.append(OldNote(kind: entity, title: try note.string("title") ?? "", rating: try note.int("rating") ?? 0,
                                             tastedAt: try note.date("tastedAt") ?? Date(), user: try note.object("user")?.string("name") ?? "",
                                             details: Dictionary(uniqueKeysWithValues: try details.map { ($0, try note.string($0) ?? "") }),
                                             shared: try sharedValues(of: note, for: v2), recipe: try recipe(of: note)))
                    }
                }
                var carry = MigrationCarry()
                carry.set(notes, for: "notes")
                return carry
            }, didMigrate: { new, carry in
                if hook == "did" { throw StrataError(.migrationFailed, "didMigrate refused") }
                let notes: [OldNote] = carry.value(for: "notes") ?? []
                let users = try new.fetch(FetchRequest(entityName: "User"))
                for old in notes {
                    guard let (entity, _) = kinds[old.kind] else { continue }
                    let note = try new.insert(entity)
                    try note.setValue(old.title, forKey: "title")
                    try note.setValue(old.rating, forKey: "rating")
                    try note.setValue(old.tastedAt, forKey: "tastedAt")
                    for (key, value) in old.shared { try note.setValue(value, forKey: key) }
                    try note.setComposite(ingredients(details: Array(old.details.values), recipe: old.recipe), forKey: "ingredients")
                    if let user = try users.first(where: { try $0.string("name") == old.user }) { try note.setObject(user, forKey: "user") }
                }
            }),
        ])
    }

    /// The same merge without carrying every old note: didMigrate reads the old store
    /// and streams each kind in batches of `batch`, saving the new notes batch by batch.
    static func streamingPlan(_ v1: ObjectModel, _ v2: ObjectModel, batch: Int, largestOld: LargestCount) -> MigrationPlan {
        MigrationPlan(models: [v1, v2], stages: [
            .custom(from: v1, to: v2, willMigrate: nil, didMigrate: { new, old, _ in
                let users = try new.fetch(FetchRequest(entityName: "User"))
                for (entity, (newEntity, details)) in kinds.sorted(by: { $0.key < $1.key }) {
                    try old.enumerateObjects(FetchRequest(entityName: entity), batchSize: batch) { notes in
                        largestOld.note(old.liveObjectCount)
                        for oldNote in notes {
                            let note = try new.insert(newEntity)
                            try note.setValue(try oldNote.string("title"), forKey: "title")
                            try note.setValue(try oldNote.int("rating"), forKey: "rating")
                            try note.setValue(try oldNote.date("tastedAt"), forKey: "tastedAt")
                            for (key, value) in try sharedValues(of: oldNote, for: v2) { try note.setValue(value, forKey: key) }
                            let values = try details.map { try oldNote.string($0) ?? "" }
                            try note.setComposite(ingredients(details: values, recipe: try recipe(of: oldNote)), forKey: "ingredients")
                            let userName = try oldNote.object("user")?.string("name")
                            if let user = try users.first(where: { try $0.string("name") == userName }) { try note.setObject(user, forKey: "user") }
                        }
                        try new.save()
                    }
                }
            }),
        ])
    }

    /// The old note's attributes that its v2 entity has by the same name, with their values.
    static func sharedValues(of note: ManagedObject, for v2: ObjectModel) throws -> [String: Value] {
        guard let (newName, _) = kinds[note.entity.name], let newEntity = v2.entity(named: newName) else { return [:] }
        var values: [String: Value] = [:]
        for attribute in note.entity.storedAttributes where newEntity.attributesByName[attribute.name] != nil {
            values[attribute.name] = try note.value(forKey: attribute.name)
        }
        return values
    }

    /// A cocktail's recipe, which v2 keeps as its ingredients; nil for other notes.
    static func recipe(of note: ManagedObject) throws -> Value? {
        note.entity.attributesByName["recipe"] == nil ? nil : try note.value(forKey: "recipe")
    }

    /// A cocktail's recipe ("30 ml gin, 15 ml lime") as ingredients with their amounts;
    /// any other note's required details, each an ingredient of amount "1".
    static func ingredients(details: [String], recipe: Value?) -> [Ingredient] {
        guard case .string(let text)? = recipe else {
            return details.sorted().map { Ingredient(name: $0, amount: "1") }
        }
        return text.split(separator: ",").map { part in
            let words = part.split(separator: " ")
            let amount = words.prefix { $0.first?.isNumber == true || ["ml", "cl", "oz", "dash", "dashes", "tsp", "barspoon"].contains($0) }
            return Ingredient(name: words.dropFirst(amount.count).joined(separator: " "), amount: amount.joined(separator: " "))
        }
    }

    final class LargestCount: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = 0
        func note(_ count: Int) { lock.withLock { stored = max(stored, count) } }
        var value: Int { lock.withLock { stored } }
    }

    @Test(arguments: ["carry", "stream"])
    func thePlanMergesTheNoteKinds(style: String) throws {
        let dir = try TemporaryDirectory("tasting")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        try Self.makeV1(at: dir.path, v1: v1)
        var options = StoreOptions()
        let largestOld = LargestCount()
        options.migration = .plan(style == "carry" ? Self.plan(v1, v2) : Self.streamingPlan(v1, v2, batch: 2, largestOld: largestOld))
        let store = try StoreUnderTest.open(at: dir.path, model: v2, options: options)
        defer { try? store.close() }
        let context = store.newContext()
        #expect(try context.count(for: FetchRequest(entityName: "TastingNote")) == 12)
        for (_, (entity, details)) in Self.kinds {
            let notes = try context.fetch(FetchRequest(entityName: entity, sortKeys: [.ascending("title")]))
            #expect(notes.count == 3)
            let first = try #require(notes.first)
            for detail in details { #expect(try first.string(detail) == "\(detail) 0") }
            #expect(try first.composite("ingredients", as: [Ingredient].self)?.first?.amount == "1")
        }
        let user = try #require(try context.fetch(FetchRequest(entityName: "User")).first)
        #expect(try user.count("notes") == 12)
        if style == "stream" {
            // Each old note holds its user: a batch of 2 notes and the user they reach.
            #expect(largestOld.value > 0 && largestOld.value <= 3, "old objects alive at once: \(largestOld.value)")
        }
    }

    @Test(arguments: ["will", "did"])
    func anErrorInAHookLeavesTheStoreAtV1ByteForByte(hook: String) throws {
        let dir = try TemporaryDirectory("tasting-fail")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        try Self.makeV1(at: dir.path, v1: v1)
        let before = try DirectorySnapshot(dir.path)
        let digestBefore = try StoreUnderTest.serverDigest(at: dir.path)
        var options = StoreOptions()
        options.migration = .plan(Self.plan(v1, v2, failIn: hook))
        let error = #expect(throws: StrataError.self) { _ = try StoreUnderTest.open(at: dir.path, model: v2, options: options) }
        #expect(error?.message.contains("\(hook)Migrate refused") == true, "the hook's error reaches the caller")
        #expect(try DirectorySnapshot(dir.path) == before)
        #expect(try StoreUnderTest.serverDigest(at: dir.path) == digestBefore, "the store on the server as it was")
        let store = try StoreUnderTest.open(at: dir.path, model: v1)
        #expect(try store.newContext().count(for: FetchRequest(entityName: "WineNote")) == 3)
        try store.close()
    }
}
