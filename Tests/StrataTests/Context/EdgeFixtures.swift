import Foundation
import StrataTestSupport
@testable import Strata

/// Models whose to-manys are stored as edge records: an ordered many-to-many
/// (Playlist.songs ↔ Song.playlists), a to-many without inverse (Playlist.favorites),
/// an ordered to-many with a to-one inverse (Album.tracks ↔ Track.album) and an
/// unordered many-to-many whose sides deny and cascade (Author.books ↔ Book.authors).
enum EdgeFixtures {
    static func model(version: String = "1", songExtras: Bool = false) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Playlist") {
                Attribute("name", .string)
                Relationship("songs", to: "Song", inverse: "playlists", toMany: true, ordered: true)
                Relationship("favorites", to: "Song", toMany: true).withoutInverse()
            }
            Entity("Song") {
                Attribute("title", .string)
                if songExtras { Attribute("genre", .string, optional: true) }
                Relationship("playlists", to: "Playlist", inverse: "songs", toMany: true)
            }
            Entity("Album") {
                Attribute("name", .string)
                Relationship("tracks", to: "Track", inverse: "album", toMany: true, ordered: true, deleteRule: .cascade)
            }
            Entity("Track") {
                Attribute("name", .string)
                Relationship("album", to: "Album", inverse: "tracks")
            }
            Entity("Author") {
                Attribute("name", .string)
                Relationship("books", to: "Book", inverse: "authors", toMany: true, deleteRule: .deny)
            }
            Entity("Book") {
                Attribute("title", .string)
                Relationship("authors", to: "Author", inverse: "books", toMany: true, deleteRule: .cascade)
            }
        }
    }

    static func named(_ context: ObjectContext, _ entity: String, _ name: String) throws -> ManagedObject {
        let object = try context.insert(entity)
        let key = entity == "Song" || entity == "Book" ? "title" : "name"
        try object.setValue(name, forKey: key)
        return object
    }

    static func names(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { try $0.entity.attributesByName["title"] != nil ? $0.string("title") ?? "" : $0.string("name") ?? "" }
    }
}
