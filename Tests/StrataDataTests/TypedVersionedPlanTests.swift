import Foundation
import StrataData
import StrataTestSupport
import Testing

// Three versions of a small library, each with its own classes, as SwiftData apps write
// them. v1 → v2 is lightweight: Book.title is renamed `name` (@Attribute(originalName:)),
// Book gains an optional `isbn`, and Shelf.books is renamed `volumes`
// (@Relationship(originalName:)). v2 → v3 is custom: v3 adds `size`, which didMigrate
// fills from what willMigrate read in the v2 store and handed over.

enum LibraryV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Shelf.self, Book.self] }

    @Model final class Shelf {
        var label: String
        @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
        init(label: String) { self.label = label }
    }

    @Model final class Book {
        var title: String
        var pages: Int = 0
        var shelf: Shelf?
        init(title: String, pages: Int) { self.title = title; self.pages = pages }
    }
}

enum LibraryV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Shelf.self, Book.self] }

    @Model final class Shelf {
        var label: String
        @Relationship(deleteRule: .cascade, originalName: "books", inverse: \Book.shelf) var volumes: [Book] = []
        init(label: String) { self.label = label }
    }

    @Model final class Book {
        @Attribute(originalName: "title") var name: String
        var pages: Int = 0
        var isbn: String?
        var shelf: Shelf?
        init(name: String) { self.name = name }
    }
}

enum LibraryV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Shelf.self, Book.self] }

    @Model final class Shelf {
        var label: String
        @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var volumes: [Book] = []
        init(label: String) { self.label = label }
    }

    @Model final class Book {
        var name: String
        var pages: Int = 0
        var isbn: String?
        var size: String = ""
        var shelf: Shelf?
        init(name: String) { self.name = name }
    }
}

struct LibraryLightweightPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [LibraryV1.self, LibraryV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: LibraryV1.self, toVersion: LibraryV2.self)] }
}

/// What the v2 → v3 hooks saw, for the test to check (written by the hooks, read after).
final class HookLog: @unchecked Sendable {
    // @unchecked: the migration runs the hooks on the caller's thread, one after the other.
    var willSawBooks = 0
    var didSawBooks = 0
}

enum LibraryPlan {
    static let log = HookLog()

    static var v2ToV3: MigrationStage {
        .custom(fromVersion: LibraryV2.self, toVersion: LibraryV3.self, willMigrate: { old in
            // The v2 classes read the old store; only values leave it.
            let books = try old.fetch(FetchDescriptor<LibraryV2.Book>())
            log.willSawBooks = books.count
            var sizes: [String: String] = [:]
            for book in books { sizes[book.name] = book.pages >= 300 ? "thick" : "thin" }
            var carry = MigrationCarry()
            carry.set(sizes, for: "sizes")
            return carry
        }, didMigrate: { new, carry in
            let sizes = carry.value(for: "sizes", as: [String: String].self) ?? [:]
            let books = try new.fetch(FetchDescriptor<LibraryV3.Book>())
            log.didSawBooks = books.count
            for book in books { book.size = sizes[book.name] ?? "unknown" }
        })
    }
}

struct LibraryThreeVersionPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [LibraryV1.self, LibraryV2.self, LibraryV3.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: LibraryV1.self, toVersion: LibraryV2.self), LibraryPlan.v2ToV3]
    }
}

/// Versioned schemas and plans through the typed API: a lightweight stage alone, and a
/// plan of a lightweight and a custom stage run by `ModelContainer(for:migrationPlan:configurations:)`,
/// every object read back through the newest classes.
@Suite(.serialized) struct TypedVersionedPlanTests {
    /// A v1 store: two shelves, three books.
    static func makeV1(_ url: URL) throws {
        let container = try ModelContainer(for: LibraryV1.Shelf.self, LibraryV1.Book.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let fiction = LibraryV1.Shelf(label: "Fiction")
        let science = LibraryV1.Shelf(label: "Science")
        for (title, pages, shelf) in [("Dune", 412, fiction), ("Emma", 200, fiction), ("Cosmos", 365, science)] {
            let book = LibraryV1.Book(title: title, pages: pages)
            book.shelf = shelf
            context.insert(book)
        }
        try context.save()
        try container.close()
    }

    @Test func aLightweightStageRenamesAndAdds() throws {
        let dir = try TemporaryDirectory("typed-plan-lightweight")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        try Self.makeV1(url)
        let container = try ModelContainer(for: LibraryV2.Shelf.self, LibraryV2.Book.self,
                                           migrationPlan: LibraryLightweightPlan.self,
                                           configurations: ModelConfiguration(url: url))
        defer { try? container.close() }
        let context = ModelContext(container)
        let books = try context.fetch(FetchDescriptor<LibraryV2.Book>(sortBy: [SortDescriptor(\.name)]))
        #expect(books.map(\.name) == ["Cosmos", "Dune", "Emma"], "title became name (originalName)")
        #expect(books.map(\.pages) == [365, 412, 200])
        #expect(books.allSatisfy { $0.isbn == nil }, "the added optional attribute is nil")
        #expect(books.map { $0.shelf?.label } == ["Science", "Fiction", "Fiction"])
        let shelves = try context.fetch(FetchDescriptor<LibraryV2.Shelf>(sortBy: [SortDescriptor(\.label)]))
        #expect(shelves.map { $0.volumes.map(\.name).sorted() } == [["Dune", "Emma"], ["Cosmos"]], "books became volumes (originalName)")
        #expect(context.accessErrors.isEmpty)
        // The migrated store answers typed predicates on the renamed attribute.
        #expect(try context.fetchCount(FetchDescriptor<LibraryV2.Book>(predicate: #Predicate { $0.name.starts(with: "D") })) == 1)
    }

    @Test func aLightweightThenCustomPlanTakesV1ToV3() throws {
        let dir = try TemporaryDirectory("typed-plan-three")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        try Self.makeV1(url)
        LibraryPlan.log.willSawBooks = 0
        LibraryPlan.log.didSawBooks = 0
        let container = try ModelContainer(for: LibraryV3.Shelf.self, LibraryV3.Book.self,
                                           migrationPlan: LibraryThreeVersionPlan.self,
                                           configurations: ModelConfiguration(url: url))
        #expect(LibraryPlan.log.willSawBooks == 3, "willMigrate read the v2 store the lightweight stage made")
        #expect(LibraryPlan.log.didSawBooks == 3, "didMigrate read the v3 store")
        let context = ModelContext(container)
        let books = try context.fetch(FetchDescriptor<LibraryV3.Book>(sortBy: [SortDescriptor(\.name)]))
        #expect(books.map(\.name) == ["Cosmos", "Dune", "Emma"])
        #expect(books.map(\.pages) == [365, 412, 200])
        #expect(books.map(\.size) == ["thick", "thick", "thin"], "didMigrate filled size from willMigrate's carry")
        #expect(books.allSatisfy { $0.isbn == nil })
        #expect(books.map { $0.shelf?.label } == ["Science", "Fiction", "Fiction"])
        let shelves = try context.fetch(FetchDescriptor<LibraryV3.Shelf>(sortBy: [SortDescriptor(\.label)]))
        #expect(shelves.map(\.label) == ["Fiction", "Science"])
        #expect(shelves.map { $0.volumes.map(\.name).sorted() } == [["Dune", "Emma"], ["Cosmos"]])
        #expect(context.accessErrors.isEmpty)
        try container.close()

        // Opened again at v3 with the same plan: nothing left to run, the hooks stay quiet.
        LibraryPlan.log.willSawBooks = 0
        let again = try ModelContainer(for: LibraryV3.Shelf.self, LibraryV3.Book.self,
                                       migrationPlan: LibraryThreeVersionPlan.self,
                                       configurations: ModelConfiguration(url: url))
        #expect(LibraryPlan.log.willSawBooks == 0)
        #expect(try ModelContext(again).fetchCount(FetchDescriptor<LibraryV3.Book>(predicate: #Predicate { $0.size == "thick" })) == 2)
        try again.close()
    }

    @Test func aV2StoreTakesOnlyTheCustomStage() throws {
        let dir = try TemporaryDirectory("typed-plan-from-v2")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        do {
            let container = try ModelContainer(for: LibraryV2.Shelf.self, LibraryV2.Book.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let book = LibraryV2.Book(name: "Ulysses")
            book.pages = 730
            book.isbn = "978-0"
            context.insert(book)
            try context.save()
            try container.close()
        }
        let container = try ModelContainer(for: LibraryV3.Shelf.self, LibraryV3.Book.self,
                                           migrationPlan: LibraryThreeVersionPlan.self,
                                           configurations: ModelConfiguration(url: url))
        defer { try? container.close() }
        let books = try ModelContext(container).fetch(FetchDescriptor<LibraryV3.Book>())
        #expect(books.map(\.name) == ["Ulysses"])
        #expect(books.map(\.isbn) == ["978-0"])
        #expect(books.map(\.size) == ["thick"])
    }

    @Test func aContainerWhoseModelsAreNotThePlansNewestIsRefused() throws {
        let dir = try TemporaryDirectory("typed-plan-mismatch")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        try Self.makeV1(url)
        let before = try DirectorySnapshot(dir.path)
        let error = #expect(throws: StrataError.self) {
            _ = try ModelContainer(for: LibraryV2.Shelf.self, LibraryV2.Book.self,
                                   migrationPlan: LibraryThreeVersionPlan.self,
                                   configurations: ModelConfiguration(url: url))
        }
        #expect(error?.code == .noMigrationPath)
        #expect(try DirectorySnapshot(dir.path) == before, "nothing was written")
    }
}
