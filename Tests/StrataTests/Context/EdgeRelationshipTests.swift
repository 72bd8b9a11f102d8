import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// Stored to-manys as edge records: both directions of a many-to-many, order, delete
/// rules, counts, predicates through edges and the records a membership costs.
@Suite struct EdgeRelationshipTests {
    typealias F = EdgeFixtures

    @Test func aManyToManyIsOneEdgeReadFromBothSides() throws {
        let store = try StoreUnderTest.inMemory(model: try F.model())
        let context = store.newContext()
        let mix = try F.named(context, "Playlist", "Mix")
        let road = try F.named(context, "Playlist", "Road")
        let a = try F.named(context, "Song", "A"), b = try F.named(context, "Song", "B")
        try mix.add(a, to: "songs")
        try b.add(mix, to: "playlists")            // from the inverse side
        try road.add(a, to: "songs")
        // Unsaved: both directions already agree.
        #expect(try F.names(mix.objects("songs")) == ["A", "B"])
        #expect(try Set(F.names(a.objects("playlists"))) == ["Mix", "Road"])
        try context.save()

        // One edge per membership, whichever side added it: three, not six list entries.
        let relation = try #require(store.schema.edgeSide("Playlist", "songs")?.relation)
        #expect(try store.records.keys(in: StoreSchema.range(tag: relation.tag)).count == 3)

        let fresh = store.newContext()
        let mix2 = try fresh.object(with: mix.objectID), a2 = try fresh.object(with: a.objectID), b2 = try fresh.object(with: b.objectID)
        #expect(try F.names(mix2.objects("songs")) == ["A", "B"])
        #expect(try Set(F.names(a2.objects("playlists"))) == ["Mix", "Road"])
        #expect(try F.names(b2.objects("playlists")) == ["Mix"])

        // Removing from the member side removes it from the owner's list too.
        try a2.remove(mix2, from: "playlists")
        try fresh.save()
        let third = store.newContext()
        #expect(try F.names(third.object(with: mix.objectID).objects("songs")) == ["B"])
        #expect(try F.names(third.object(with: a.objectID).objects("playlists")) == ["Road"])
        #expect(try store.records.keys(in: StoreSchema.range(tag: relation.tag)).count == 2)
    }

    @Test func orderedMembershipKeepsItsOrderThroughMovesAndReopen() throws {
        let directory = try TemporaryDirectory("edges-order")
        defer { directory.remove() }
        let path = directory.appending("store.strata")
        var store = try StoreUnderTest.open(at: path, model: try F.model())
        var context = store.newContext()
        let mix = try F.named(context, "Playlist", "Mix")
        let songs = try (0..<6).map { try F.named(context, "Song", "S\($0)") }
        for song in songs { try mix.add(song, to: "songs") }
        try context.save()
        #expect(try F.names(mix.objects("songs")) == ["S0", "S1", "S2", "S3", "S4", "S5"])
        let reader = store.newContext()
        #expect(try F.names(reader.object(with: mix.objectID).objects("songs")) == ["S0", "S1", "S2", "S3", "S4", "S5"])

        // Moving one member writes about one edge, not the list.
        let relation = try #require(store.schema.edgeSide("Playlist", "songs")?.relation)
        store.resetStatistics()
        try mix.setObjects([songs[0], songs[4], songs[1], songs[2], songs[3], songs[5]], forKey: "songs")
        try context.save()
        #expect(store.statistics.commits == 1)
        let moved = try F.names(mix.objects("songs"))
        #expect(moved == ["S0", "S4", "S1", "S2", "S3", "S5"])
        // A reversal writes every edge but the one that keeps its place.
        try mix.setObjects(songs.reversed(), forKey: "songs")
        try context.save()
        // Remove then add moves to the end (Core Data's ordered-set behaviour).
        try mix.remove(songs[3], from: "songs")
        try mix.add(songs[3], to: "songs")
        try context.save()
        let expected = ["S5", "S4", "S2", "S1", "S0", "S3"]
        #expect(try F.names(mix.objects("songs")) == expected)
        try store.close()

        store = try StoreUnderTest.open(at: path, model: try F.model())
        context = store.newContext()
        let reopened = try context.object(with: mix.objectID)
        #expect(try F.names(reopened.objects("songs")) == expected)
        #expect(try store.records.keys(in: StoreSchema.range(tag: relation.tag)).count == 6)
        // Many moves into the same gap: positions run out and the side is renumbered.
        var order = try reopened.objects("songs")
        for _ in 0..<40 {
            let last = order.removeLast()
            order.insert(last, at: 1)
            try reopened.setObjects(order, forKey: "songs")
            try context.save()
        }
        let expectedOrder = try F.names(order)
        let last = store.newContext()
        #expect(try F.names(last.object(with: mix.objectID).objects("songs")) == expectedOrder)
        try store.close()
    }

    @Test func anOrderedToManyWithAToOneInverseMovesItsEdgeWithTheToOne() throws {
        let store = try StoreUnderTest.inMemory(model: try F.model())
        let context = store.newContext()
        let first = try F.named(context, "Album", "First"), second = try F.named(context, "Album", "Second")
        let tracks = try (0..<4).map { try F.named(context, "Track", "T\($0)") }
        for track in tracks.reversed() { try first.add(track, to: "tracks") }
        try context.save()
        #expect(try F.names(first.objects("tracks")) == ["T3", "T2", "T1", "T0"])
        try tracks[2].setObject(second, forKey: "album")
        try context.save()
        let fresh = store.newContext()
        #expect(try F.names(fresh.object(with: first.objectID).objects("tracks")) == ["T3", "T1", "T0"])
        #expect(try F.names(fresh.object(with: second.objectID).objects("tracks")) == ["T2"])
        #expect(try fresh.object(with: tracks[2].objectID).object("album")?.objectID == second.objectID)

        // Batch insert writes the edge of an ordered inverse, appended.
        let ids = try store.batchInsert(entityName: "Track", objects: [["name": .string("T9")]], relationships: [["album": first.objectID]])
        let third = store.newContext()
        #expect(try F.names(third.object(with: first.objectID).objects("tracks")) == ["T3", "T1", "T0", "T9"])
        #expect(try third.object(with: ids[0]).object("album")?.objectID == first.objectID)
    }

    @Test func deleteRulesWorkThroughEdgesAndADeletedObjectTakesItsEdges() throws {
        let store = try StoreUnderTest.inMemory(model: try F.model())
        let context = store.newContext()
        let ada = try F.named(context, "Author", "Ada"), bob = try F.named(context, "Author", "Bob")
        let notes = try F.named(context, "Book", "Notes"), sketches = try F.named(context, "Book", "Sketches")
        try ada.add(notes, to: "books")
        try bob.add(notes, to: "books")
        try bob.add(sketches, to: "books")
        let mix = try F.named(context, "Playlist", "Mix")
        let song = try F.named(context, "Song", "A"), other = try F.named(context, "Song", "B")
        try mix.add(song, to: "songs")
        try mix.add(other, to: "songs")
        try mix.add(song, to: "favorites")
        try context.save()

        // Deny: an author with books cannot go.
        let denied = #expect(throws: StrataError.self) { try context.delete(ada) }
        #expect(denied?.code == .deleteDenied)
        #expect(!context.hasChanges)

        // Cascade from the member side reaches the authors, whose deny then refuses
        // while they have another book — as Core Data checks the whole closure.
        let cascaded = #expect(throws: StrataError.self) { try context.delete(sketches) }
        #expect(cascaded?.code == .deleteDenied)
        #expect(cascaded?.context["objects"] == notes.objectID.description)
        // Once Ada's book is Ada's alone, deleting Ada's only book takes Ada too.
        try bob.remove(notes, from: "books")
        try bob.remove(sketches, from: "books")
        try context.save()
        try context.delete(notes)
        try context.save()
        let afterCascade = store.newContext()
        #expect(try afterCascade.count(for: FetchRequest(entityName: "Author")) == 1)
        #expect(try F.names(afterCascade.object(with: bob.objectID).objects("books")).isEmpty)
        #expect(try afterCascade.object(with: sketches.objectID).objects("authors").isEmpty)

        // Nullify (Song.playlists) and no inverse (Playlist.favorites): both lists lose it.
        try context.delete(song)
        #expect(try F.names(mix.objects("songs")) == ["B"])
        #expect(try mix.objects("favorites").isEmpty)
        try context.save()
        let fresh = store.newContext()
        let mix2 = try fresh.object(with: mix.objectID)
        #expect(try F.names(mix2.objects("songs")) == ["B"])
        #expect(try mix2.objects("favorites").isEmpty)
        #expect(try mix2.count("favorites") == 0)

        // Cascade on an ordered to-many with a to-one inverse.
        let album = try F.named(fresh, "Album", "Gone")
        let track = try F.named(fresh, "Track", "T")
        try album.add(track, to: "tracks")
        try fresh.save()
        try fresh.delete(album)
        try fresh.save()
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Track")) == 0)

        // No edge is left whose end is gone.
        for relation in store.schema.edgeRelations {
            for key in try store.records.keys(in: StoreSchema.range(tag: relation.tag)) {
                let edge = try EdgeCodec.decode(try #require(try store.records.get(key)))
                #expect(try store.records.contains(edge.owner) && store.records.contains(edge.member), "\(relation.name) edge \(key)")
            }
        }
    }

    @Test func batchDeleteTombstonesTheEdgesOfWhatItDeletes() throws {
        let store = try StoreUnderTest.inMemory(model: try F.model())
        let context = store.newContext()
        let mix = try F.named(context, "Playlist", "Mix")
        let songs = try (0..<5).map { try F.named(context, "Song", "S\($0)") }
        for song in songs { try mix.add(song, to: "songs"); try mix.add(song, to: "favorites") }
        try context.save()
        let removed = try store.batchDelete(entityName: "Song", predicate: try Strata.Predicate(format: "title IN {'S1', 'S3'}"))
        #expect(removed == 2)
        let fresh = store.newContext()
        let owner = try fresh.object(with: mix.objectID)
        #expect(try F.names(owner.objects("songs")) == ["S0", "S2", "S4"])
        #expect(try owner.count("favorites") == 3)
        #expect(try F.names(owner.objects("favorites")) == ["S0", "S2", "S4"])
    }

    @Test func countsAreValidatedFromEdgesAtSave() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("members", to: "Person", inverse: "teams", toMany: true).count(min: 1, max: 3)
            }
            Entity("Person") {
                Attribute("name", .string)
                Relationship("teams", to: "Team", inverse: "members", toMany: true)
            }
        }
        let store = try StoreUnderTest.inMemory(model: model)
        let context = store.newContext()
        let team = try F.named(context, "Team", "Blue")
        let people = try (0..<4).map { try F.named(context, "Person", "P\($0)") }
        var error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.context["objects"]?.contains("minimumCount") == true)
        for person in people { try person.add(team, to: "teams") }
        error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.context["objects"]?.contains("maximumCount") == true)
        try people[3].remove(team, from: "teams")
        try context.save()

        // The team is not written by a change on the person side, but it is validated:
        // dropping its members one by one from the other side fails at the last.
        let fresh = store.newContext()
        let teamAgain = try fresh.object(with: team.objectID)
        #expect(try teamAgain.count("members") == 3)
        for person in people.prefix(2) { try fresh.object(with: person.objectID).remove(teamAgain, from: "teams") }
        try fresh.save()
        try fresh.object(with: people[2].objectID).remove(teamAgain, from: "teams")
        error = #expect(throws: StrataError.self) { try fresh.save() }
        #expect(error?.context["objects"]?.contains(team.objectID.description) == true)
    }

    @Test func predicatesReadThroughEdgesBothWays() throws {
        let store = try StoreUnderTest.inMemory(model: try F.model())
        let context = store.newContext()
        let mix = try F.named(context, "Playlist", "Mix"), road = try F.named(context, "Playlist", "Road"), empty = try F.named(context, "Playlist", "Empty")
        let a = try F.named(context, "Song", "Alpha"), b = try F.named(context, "Song", "Beta"), c = try F.named(context, "Song", "Gamma")
        for song in [a, b, c] { try mix.add(song, to: "songs") }
        try road.add(b, to: "songs")
        _ = empty
        try context.save()
        func playlists(_ format: String, pending: Bool = true) throws -> [String] {
            var request = FetchRequest(entityName: "Playlist", predicate: try Strata.Predicate(format: format))
            request.includesPendingChanges = pending
            return try store.newContext().fetch(request).map { try $0.string("name") ?? "" }.sorted()
        }
        #expect(try playlists("ANY songs.title == 'Beta'") == ["Mix", "Road"])
        #expect(try playlists("songs.@count >= 2") == ["Mix"])
        #expect(try playlists("songs.@count == 0") == ["Empty"])
        #expect(try playlists("ALL songs.title BEGINSWITH 'B'") == ["Empty", "Road"])
        #expect(try playlists("ANY songs.title == 'Gamma'", pending: false) == ["Mix"])
        let songs = try store.newContext().fetch(FetchRequest(entityName: "Song", predicate: try Strata.Predicate(format: "ANY playlists.name == 'Road'")))
        #expect(try F.names(songs) == ["Beta"])
    }

    @Test(StoreUnderTest.engineSpecific) func addingOneMemberToALargeRelationshipWritesOneSmallRecord() throws {
        let directory = try TemporaryDirectory("edges-large")
        defer { directory.remove() }
        let store = try StoreUnderTest.open(at: directory.appending("store.strata"), model: try F.model())
        defer { try? store.close() }
        let count = 100_000
        let songIDs = try store.batchInsert(entityName: "Song", objects: (0..<count + 1).map { ["title": .string("S\($0)")] })
        var context = store.newContext()
        let mix = try F.named(context, "Playlist", "Mix")
        try context.save()
        for id in songIDs.prefix(count) { try mix.add(try context.object(with: id), to: "songs") }
        try context.save()
        context.reset()

        context = store.newContext()
        let owner = try context.object(with: mix.objectID)
        let song = try context.object(with: songIDs[count])
        store.resetStatistics()
        try owner.add(song, to: "songs")
        try context.save()
        let stats = store.statistics
        // One edge (~160 bytes with its terms), the relation's id counter, the frames
        // around them: far below the 800 KB a list of 100,001 keys would be.
        #expect(stats.segmentBytesWritten < 1_024, "\(stats)")
        #expect(stats.recordsDecoded == 0, "no member (and no owner) record is read: \(stats)")
        #expect(try owner.count("songs") == count + 1)
        let last = try context.object(with: mix.objectID).objects("songs").last
        #expect(last?.objectID == song.objectID)
        #expect(try song.objects("playlists").map(\.objectID) == [mix.objectID])
    }
}
