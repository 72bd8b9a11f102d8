import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Random adds, removes, reorders, moves and deletes on stored to-manys, saved and
/// reopened, against a plain in-memory model of the same memberships.
@Suite struct EdgeModelCheckTests {
    typealias F = EdgeFixtures

    /// The plain model: ordered lists and sets of names.
    struct Plain {
        var songs: [String: [String]] = [:]       // playlist → songs, ordered
        var favorites: [String: Set<String>] = [:]
        var tracks: [String: [String]] = [:]      // album → tracks, ordered
        var albumOf: [String: String] = [:]
        var liveSongs: [String] = []
        var liveTracks: [String] = []

        mutating func add(_ song: String, to playlist: String) {
            if songs[playlist]?.contains(song) == false { songs[playlist]?.append(song) }
        }
        mutating func move(_ track: String, to album: String) {
            if let old = albumOf[track] {
                if old == album { return }
                tracks[old]?.removeAll { $0 == track }
            }
            albumOf[track] = album
            tracks[album]?.append(track)
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func membershipMatchesAPlainModelAcrossSavesAndReopen(seed: UInt64) throws {
        let directory = try TemporaryDirectory("edges-check")
        defer { directory.remove() }
        let path = directory.appending("store.strata")
        var store = try StoreUnderTest.open(at: path, model: try F.model())
        var context = store.newContext()
        var random = SeededRandom(seed: seed)
        var plain = Plain()
        var ids: [String: ObjectID] = [:]
        let playlists = (0..<4).map { "P\($0)" }
        let albums = (0..<3).map { "A\($0)" }
        for name in playlists {
            ids[name] = try F.named(context, "Playlist", name).objectID
            plain.songs[name] = []
            plain.favorites[name] = []
        }
        for name in albums {
            ids[name] = try F.named(context, "Album", name).objectID
            plain.tracks[name] = []
        }
        var serial = 0
        func newSong() throws {
            serial += 1
            let name = "S\(serial)"
            ids[name] = try F.named(context, "Song", name).objectID
            plain.liveSongs.append(name)
        }
        func newTrack() throws {
            serial += 1
            let name = "T\(serial)"
            ids[name] = try F.named(context, "Track", name).objectID
            plain.liveTracks.append(name)
        }
        for _ in 0..<8 { try newSong() }
        for _ in 0..<5 { try newTrack() }
        func object(_ name: String) throws -> ManagedObject { try context.object(with: try #require(ids[name])) }
        func pick(_ names: [String]) -> String? { names.isEmpty ? nil : names[random.int(in: 0...(names.count - 1))] }

        func check(_ context: ObjectContext, _ label: String) throws {
            for playlist in playlists {
                let owner = try context.object(with: try #require(ids[playlist]))
                let songs = try F.names(owner.objects("songs")), favorites = try Set(F.names(owner.objects("favorites")))
                let count = try owner.count("songs")
                #expect(songs == plain.songs[playlist], "\(label): \(playlist).songs")
                #expect(favorites == plain.favorites[playlist], "\(label): \(playlist).favorites")
                #expect(count == plain.songs[playlist]?.count, "\(label): \(playlist) count")
            }
            for song in plain.liveSongs {
                let expected = playlists.filter { plain.songs[$0]?.contains(song) == true }
                let got = try F.names(context.object(with: try #require(ids[song])).objects("playlists"))
                #expect(got == expected, "\(label): \(song).playlists")
            }
            for album in albums {
                let owner = try context.object(with: try #require(ids[album]))
                let tracks = try F.names(owner.objects("tracks"))
                #expect(tracks == plain.tracks[album], "\(label): \(album).tracks")
            }
        }

        for step in 0..<300 {
            let roll = random.int(in: 0...99)
            switch roll {
            case 0..<30:
                guard let p = pick(playlists), let s = pick(plain.liveSongs) else { break }
                if random.chance(50) {
                    try object(p).add(try object(s), to: "songs")
                } else {
                    try object(s).add(try object(p), to: "playlists")
                }
                plain.add(s, to: p)
            case 30..<42:
                guard let p = pick(playlists), let s = pick(plain.songs[p] ?? []) else { break }
                if random.chance(50) { try object(p).remove(try object(s), from: "songs") } else { try object(s).remove(try object(p), from: "playlists") }
                plain.songs[p]?.removeAll { $0 == s }
            case 42..<50:
                guard let p = pick(playlists), var order = plain.songs[p], order.count > 1 else { break }
                let from = random.int(in: 0...(order.count - 1)), to = random.int(in: 0...(order.count - 1))
                order.insert(order.remove(at: from), at: to)
                try object(p).setObjects(try order.map(object), forKey: "songs")
                plain.songs[p] = order
            case 50..<58:
                guard let p = pick(playlists), let s = pick(plain.liveSongs) else { break }
                if plain.favorites[p]?.contains(s) == true, random.chance(50) {
                    try object(p).remove(try object(s), from: "favorites")
                    plain.favorites[p]?.remove(s)
                } else {
                    try object(p).add(try object(s), to: "favorites")
                    plain.favorites[p]?.insert(s)
                }
            case 58..<66:
                guard let t = pick(plain.liveTracks), let a = pick(albums) else { break }
                if random.chance(50) { try object(t).setObject(try object(a), forKey: "album") } else { try object(a).add(try object(t), to: "tracks") }
                plain.move(t, to: a)
            case 66..<72:
                guard let s = pick(plain.liveSongs) else { break }
                try context.delete(try object(s))
                plain.liveSongs.removeAll { $0 == s }
                for p in playlists {
                    plain.songs[p]?.removeAll { $0 == s }
                    plain.favorites[p]?.remove(s)
                }
            case 72..<76:
                guard let t = pick(plain.liveTracks) else { break }
                try context.delete(try object(t))
                plain.liveTracks.removeAll { $0 == t }
                if let a = plain.albumOf.removeValue(forKey: t) { plain.tracks[a]?.removeAll { $0 == t } }
            case 76..<82:
                if random.chance(50) { try newSong() } else { try newTrack() }
            case 82..<92:
                try context.save()
                try check(store.newContext(), "step \(step) after save")
            case 92..<96:
                try context.save()
                try store.close()
                store = try StoreUnderTest.open(at: path, model: try F.model())
                context = store.newContext()
                try check(context, "step \(step) after reopen")
            default:
                break
            }
            // The context's own view (unsaved changes applied) must match too.
            if step % 4 == 0 { try check(context, "step \(step) in the context") }
        }
        try context.save()
        try check(store.newContext(), "end")
        try store.close()
    }
}
