import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A migration carries stored to-manys as edges: both sides of a many-to-many, the
/// order of ordered ones, and inverse-less ones, each membership once.
@Suite struct EdgeMigrationTests {
    typealias F = EdgeFixtures

    @Test(arguments: [1, 3, 1000])
    func aManyToManyMigratesWithItsOrderAndBothDirections(batchSize: Int) throws {
        let directory = try TemporaryDirectory("edge-migration")
        defer { directory.remove() }
        let path = directory.appending("store.strata")
        var store = try ObjectStore(at: path, model: try F.model())
        var context = store.newContext()
        let playlists = try (0..<3).map { try F.named(context, "Playlist", "P\($0)") }
        let songs = try (0..<7).map { try F.named(context, "Song", "S\($0)") }
        var expected: [[String]] = []
        for (i, playlist) in playlists.enumerated() {
            let members = songs.enumerated().filter { ($0.offset + i) % 2 == 0 }.map(\.element).reversed()
            for song in members { try playlist.add(song, to: "songs") }
            try playlist.add(songs[i], to: "favorites")
            expected.append(try F.names(Array(members)))
        }
        let album = try F.named(context, "Album", "A")
        for name in ["T2", "T0", "T1"] { try album.add(try F.named(context, "Track", name), to: "tracks") }
        try context.save()
        let ids = playlists.map(\.objectID), songIDs = songs.map(\.objectID), albumID = album.objectID
        try store.close()

        var options = StoreOptions()
        options.migration = .inferred
        options.migrationBatchSize = batchSize
        store = try ObjectStore(at: path, model: try F.model(version: "2", songExtras: true), options: options)
        context = store.newContext()
        for (i, id) in ids.enumerated() {
            let playlist = try context.object(with: id)
            #expect(try F.names(playlist.objects("songs")) == expected[i], "P\(i)")
            #expect(try F.names(playlist.objects("favorites")) == ["S\(i)"])
        }
        for (j, id) in songIDs.enumerated() {
            let owners = try F.names(context.object(with: id).objects("playlists"))
            #expect(owners == (0..<3).filter { (j + $0) % 2 == 0 }.map { "P\($0)" }, "S\(j)")
        }
        #expect(try F.names(context.object(with: albumID).objects("tracks")) == ["T2", "T0", "T1"])
        // Each membership is one edge: 11 in songs, 3 favorites, 3 tracks.
        let edges = try store.schema.edgeRelations.reduce(0) { $0 + (try store.records.keys(in: StoreSchema.range(tag: $1.tag)).count) }
        #expect(edges == 11 + 3 + 3)
        try store.close()
    }
}
