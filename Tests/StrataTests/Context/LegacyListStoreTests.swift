import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// Stores written before edges hold stored to-manys as lists of keys inside the
/// owning record (object codec field tag 4) and have no edge tags in their metadata.
/// They open and read as they did; a list turns into edges at its object's next
/// change; a migration writes edges only (docs/FORMAT.md §11.3).
@Suite struct LegacyListStoreTests {
    typealias F = EdgeFixtures

    /// Keys of the objects the legacy writer made, by name.
    struct Written {
        var keys: [String: RecordKey] = [:]
        func id(_ name: String, _ store: ObjectStore) throws -> ObjectID {
            let key = try #require(keys[name])
            return try #require(store.objectID(for: key))
        }
    }

    /// Writes a store as the release before edges did: lists in the records, on both
    /// sides of a many-to-many, and no `strata.edges` metadata.
    static func writeLegacyStore(at path: String) throws -> Written {
        let model = try F.model()
        try StoreUnderTest.open(at: path, model: model).close()
        let log = try LogStore.open(at: path)
        defer { try? log.close() }
        var metadata = log.metadata
        metadata[StoreSchema.edgesMetadataKey] = nil
        metadata[MetadataDigest.key] = nil  // written before the digest too
        try log.setMetadata(metadata)
        let schema = try StoreSchema(model: model, existing: try ObjectStore.storedTags(in: log))
        var written = Written()
        var serials: [String: UInt64] = [:]
        for (name, entity) in [("P1", "Playlist"), ("P2", "Playlist"), ("S1", "Song"), ("S2", "Song"), ("S3", "Song"), ("S4", "Song"),
                               ("A1", "Album"), ("T1", "Track"), ("T2", "Track"), ("Ada", "Author"), ("B1", "Book")] {
            let tag = try schema.layout(entity).tag
            serials[entity, default: 0] += 1
            written.keys[name] = StoreSchema.key(tag: tag, serial: serials[entity] ?? 1)
        }
        func keys(_ names: [String]) -> FieldValue { .references(names.compactMap { written.keys[$0] }) }
        let rows: [(String, String, [String: FieldValue])] = [
            ("P1", "Playlist", ["name": .value(.string("P1")), "songs": keys(["S3", "S1", "S2"]), "favorites": keys(["S2"])]),
            ("P2", "Playlist", ["name": .value(.string("P2")), "songs": keys(["S1"]), "favorites": keys([])]),
            ("S1", "Song", ["title": .value(.string("S1")), "playlists": keys(["P1", "P2"])]),
            ("S2", "Song", ["title": .value(.string("S2")), "playlists": keys(["P1"])]),
            ("S3", "Song", ["title": .value(.string("S3")), "playlists": keys(["P1"])]),
            ("S4", "Song", ["title": .value(.string("S4")), "playlists": keys([])]),
            ("A1", "Album", ["name": .value(.string("A1")), "tracks": keys(["T2", "T1"])]),
            ("T1", "Track", ["name": .value(.string("T1")), "album": .reference(written.keys["A1"] ?? RecordKey(0))]),
            ("T2", "Track", ["name": .value(.string("T2")), "album": .reference(written.keys["A1"] ?? RecordKey(0))]),
            ("Ada", "Author", ["name": .value(.string("Ada")), "books": keys(["B1"])]),
            ("B1", "Book", ["title": .value(.string("B1")), "authors": keys(["Ada"])]),
        ]
        var batch = WriteBatch()
        for (name, entity, values) in rows {
            let layout = try schema.layout(entity)
            let fields = layout.fields.map { values[$0.name] ?? .null }
            let (value, blobs, terms) = try ObjectCodec.encode(fields, layout: layout, blobBytes: { _ in [] })
            batch.put(try #require(written.keys[name]), value: value, blobs: blobs, terms: terms)
        }
        for (entity, serial) in serials {
            batch.put(StoreSchema.counterKey(tag: try schema.layout(entity).tag), value: withUnsafeBytes(of: (serial + 1).littleEndian) { Array($0) })
        }
        try log.commit(batch)
        return written
    }

    static func names(_ store: ObjectStore, _ written: Written, _ name: String, _ key: String) throws -> [String] {
        let context = store.newContext()
        return try F.names(context.object(with: written.id(name, store)).objects(key))
    }

    @Test(StoreUnderTest.engineSpecific) func aStoreWithListsOpensReadOnlyAndReadsItsLists() throws {
        let directory = try TemporaryDirectory("legacy-lists")
        defer { directory.remove() }
        let path = directory.appending("store.strata")
        let written = try Self.writeLegacyStore(at: path)
        let before = try DirectorySnapshot(path)
        var options = StoreOptions()
        options.log.readOnly = true
        let store = try StoreUnderTest.open(at: path, model: try F.model(), options: options)
        #expect(store.schema.mayHaveLegacyLists)
        #expect(try Self.names(store, written, "P1", "songs") == ["S3", "S1", "S2"])
        #expect(try Self.names(store, written, "P1", "favorites") == ["S2"])
        #expect(try Self.names(store, written, "S1", "playlists") == ["P1", "P2"])
        #expect(try Self.names(store, written, "A1", "tracks") == ["T2", "T1"])
        #expect(try Self.names(store, written, "B1", "authors") == ["Ada"])
        let context = store.newContext()
        #expect(try context.object(with: written.id("P1", store)).count("songs") == 3)
        let request = FetchRequest(entityName: "Playlist", predicate: try Strata.Predicate(format: "ANY songs.title == 'S2'"))
        #expect(try context.fetch(request).count == 1)
        try store.close()
        #expect(try DirectorySnapshot(path) == before, "a read-only open writes nothing")
    }

    @Test(StoreUnderTest.engineSpecific) func listsTurnIntoEdgesAtTheNextChangeAndStayCorrect() throws {
        let directory = try TemporaryDirectory("legacy-lists")
        defer { directory.remove() }
        let path = directory.appending("store.strata")
        let written = try Self.writeLegacyStore(at: path)
        var store = try StoreUnderTest.open(at: path, model: try F.model())
        var context = store.newContext()
        let p1 = try context.object(with: written.id("P1", store))
        try p1.add(try context.object(with: written.id("S4", store)), to: "songs")
        try context.object(with: written.id("P2", store)).remove(try context.object(with: written.id("S1", store)), from: "songs")
        try context.object(with: written.id("A1", store)).add(try context.insert("Track").settingName("T3"), to: "tracks")
        try context.save()
        // The changed owners no longer hold a list; an untouched one still does.
        #expect(try p1.field("songs") == .null)
        #expect(try context.object(with: written.id("P1", store)).field("favorites") != .null)
        try store.close()

        store = try StoreUnderTest.open(at: path, model: try F.model())
        #expect(try Self.names(store, written, "P1", "songs") == ["S3", "S1", "S2", "S4"])
        #expect(try Self.names(store, written, "P2", "songs").isEmpty)
        #expect(try Self.names(store, written, "S1", "playlists") == ["P1"])
        #expect(try Self.names(store, written, "S4", "playlists") == ["P1"])
        #expect(try Self.names(store, written, "A1", "tracks") == ["T2", "T1", "T3"])
        #expect(try Self.names(store, written, "P1", "favorites") == ["S2"])

        // Deleting a song: its list, and the lists and edges naming it, let it go.
        context = store.newContext()
        try context.delete(try context.object(with: written.id("S2", store)))
        try context.save()
        #expect(try Self.names(store, written, "P1", "songs") == ["S3", "S1", "S4"])
        #expect(try Self.names(store, written, "P1", "favorites").isEmpty)
        // Reordering a converted side keeps every member.
        context = store.newContext()
        let owner = try context.object(with: written.id("P1", store))
        try owner.setObjects(try owner.objects("songs").reversed(), forKey: "songs")
        try context.save()
        #expect(try Self.names(store, written, "P1", "songs") == ["S4", "S1", "S3"])
        // A batch delete edits lists that remain and tombstones edges.
        try store.batchDelete(entityName: "Book")
        #expect(try Self.names(store, written, "Ada", "books").isEmpty)
        try store.close()
    }

    @Test(StoreUnderTest.engineSpecific) func migratingAStoreWithListsWritesEdgesOnly() throws {
        let directory = try TemporaryDirectory("legacy-lists")
        defer { directory.remove() }
        let path = directory.appending("store.strata")
        let written = try Self.writeLegacyStore(at: path)
        var options = StoreOptions()
        options.migration = .inferred
        let store = try StoreUnderTest.open(at: path, model: try F.model(version: "2", songExtras: true), options: options)
        defer { try? store.close() }
        #expect(!store.schema.mayHaveLegacyLists)
        #expect(try Self.names(store, written, "P1", "songs") == ["S3", "S1", "S2"])
        #expect(try Self.names(store, written, "S1", "playlists") == ["P1", "P2"])
        #expect(try Self.names(store, written, "P1", "favorites") == ["S2"])
        #expect(try Self.names(store, written, "A1", "tracks") == ["T2", "T1"])
        #expect(try Self.names(store, written, "Ada", "books") == ["B1"])
        // No record holds a list any more.
        let context = store.newContext()
        for entity in ["Playlist", "Song", "Album", "Author", "Book"] {
            for object in try context.fetch(FetchRequest(entityName: entity)) {
                for field in object.stored?.fields ?? [] {
                    if case .references = field { Issue.record("\(object.objectID) still holds a list") }
                }
            }
        }
    }
}

extension ManagedObject {
    fileprivate func settingName(_ name: String) throws -> ManagedObject {
        try setValue(name, forKey: "name")
        return self
    }
}
