import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// `destinationInstances(forEntityMapping:sourceInstances:)`
/// answers for every kind of entity mapping (a plain copy whose objects keep their
/// keys included), and a relationship mapping can say "what the source's related
/// objects became under mapping M" without a policy.
@Suite struct DestinationInstancesTests {
    // MARK: Point 4: a policy links to what a default copy made

    static func library() throws -> (v1: ObjectModel, v2: ObjectModel) {
        let v1 = try ObjectModel(version: "1") {
            Entity("Author") { Attribute("name", .string) }
            Entity("Book") {
                Attribute("title", .string)
                Attribute("authorName", .string, optional: true)
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Author") {
                Attribute("name", .string)
                Relationship("books", to: "Book", inverse: "author", toMany: true)
            }
            Entity("Book") {
                Attribute("title", .string)
                Relationship("author", to: "Author", inverse: "books", optional: true)
            }
        }
        return (v1, v2)
    }

    /// Links each book to its author by the name it held: the author objects were made
    /// by "AuthorToAuthor", a default copy that keeps keys and writes no map.
    final class AuthorLinkPolicy: EntityMigrationPolicy, @unchecked Sendable {
        override func createRelationships(forDestination book: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createRelationships(forDestination: book, mapping: mapping, manager: manager)
            let source = try manager.sourceInstances(forEntityMapping: mapping.name, destinationInstances: [book])
            guard let name = try source.first?.string("authorName") else { return }
            let authors = try manager.sourceContext.fetch(FetchRequest(entityName: "Author", predicate: try Predicate(format: "name == %@", name)))
            let made = try manager.destinationInstances(forEntityMapping: "AuthorToAuthor", sourceInstances: authors)
            try book.setObject(made.first, forKey: "author")
        }
    }

    @Test func aPolicyFindsWhatADefaultCopyMade() throws {
        let dir = try TemporaryDirectory("destinations-copy")
        defer { dir.remove() }
        let (v1, v2) = try Self.library()
        let books = ["Dune": "Herbert", "Emma": "Austen", "Persuasion": "Austen", "Ulysses": "Joyce", "Anonymous": nil]
        try InferredStore.create(at: dir.path, model: v1) { context in
            for name in ["Austen", "Herbert", "Joyce"] { try context.insert("Author").setValue(name, forKey: "name") }
            for (title, author) in books.sorted(by: { $0.key < $1.key }) {
                let book = try context.insert("Book")
                try book.setValue(title, forKey: "title")
                try book.setValue(author.map(Value.string) ?? .null, forKey: "authorName")
            }
        }
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        #expect(mapping.entityMapping(named: "AuthorToAuthor")?.hasCustomPolicy == false)
        let index = try #require(mapping.entityMappings.firstIndex { $0.name == "BookToBook" })
        mapping.entityMappings[index].kind = .custom
        mapping.entityMappings[index].policyFactory = { AuthorLinkPolicy() }
        try InferredStore.migrate(at: dir.path, to: v2, with: .mappings([mapping], models: [v2])) { context in
            let migrated = try context.keyedObjects("Book", by: "title")
            #expect(migrated.keys.sorted() == books.keys.sorted())
            for (title, author) in books {
                #expect(try migrated[title]?.object("author")?.string("name") == author, "\(title)")
            }
            let authors = try context.keyedObjects("Author", by: "name")
            #expect(try authors["Austen"]?.objects("books").map { try $0.string("title") ?? "" }.sorted() == ["Emma", "Persuasion"])
        }
    }

    @Test func everyMappingKindAnswersAndOtherObjectsGiveNothing() throws {
        let dir = try TemporaryDirectory("destinations-kinds")
        defer { dir.remove() }
        let (v1, v2) = try Self.library()
        try InferredStore.create(at: dir.path, model: v1) { context in
            try context.insert("Author").setValue("Austen", forKey: "name")
            try context.insert("Book").setValue("Emma", forKey: "title")
        }
        /// Checks, at the end of the migration, what each mapping answers.
        final class Probe: EntityMigrationPolicy, @unchecked Sendable {
            nonisolated(unsafe) static var answers: [String] = []
            override func end(mapping: EntityMapping, manager: MigrationManager) throws {
                let authors = try manager.sourceContext.fetch(FetchRequest(entityName: "Author"))
                let books = try manager.sourceContext.fetch(FetchRequest(entityName: "Book"))
                for name in ["AuthorToAuthor", "BookToBook"] {
                    let made = try manager.destinationInstances(forEntityMapping: name, sourceInstances: authors + books)
                    Self.answers.append("\(name): " + made.map { "\($0.objectID)" }.joined(separator: ","))
                    let back = try manager.sourceInstances(forEntityMapping: name, destinationInstances: made)
                    Self.answers.append("\(name) back: " + back.map { "\($0.objectID)" }.joined(separator: ","))
                }
                let unknown = #expect(throws: StrataError.self) {
                    try manager.destinationInstances(forEntityMapping: "NoSuchMapping", sourceInstances: authors)
                }
                Self.answers.append("unknown: \(unknown?.code.rawValue ?? "none")")
            }
        }
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        mapping.entityMappings[1].kind = .custom
        mapping.entityMappings[1].policyFactory = { Probe() }
        Probe.answers = []
        try InferredStore.migrate(at: dir.path, to: v2, with: .mappings([mapping], models: [v2])) { _ in }
        // A copy and a custom mapping both answer, each with its own objects only.
        #expect(Probe.answers == [
            "AuthorToAuthor: Author/1", "AuthorToAuthor back: Author/1",
            "BookToBook: Book/1", "BookToBook back: Book/1", "unknown: invalidArgument",
        ])
    }

    // MARK: Point 8: relationships by what the source's related objects became

    static func pets() throws -> (v1: ObjectModel, v2: ObjectModel) {
        let v1 = try ObjectModel(version: "pets-1") {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true)
            }
            Entity("Pet") {
                Attribute("name", .string)
                Attribute("species", .string)
                Relationship("owner", to: "Person", inverse: "pets", optional: true)
            }
        }
        let v2 = try ObjectModel(version: "pets-2") {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("dogs", to: "Dog", inverse: "owner", toMany: true)
                Relationship("cats", to: "Cat", inverse: "owner", toMany: true)
            }
            Entity("Dog") {
                Attribute("name", .string)
                Relationship("owner", to: "Person", inverse: "dogs", optional: true)
            }
            Entity("Cat") {
                Attribute("name", .string)
                Relationship("owner", to: "Person", inverse: "cats", optional: true)
            }
        }
        return (v1, v2)
    }

    /// Pet splits into Dog and Cat by species. Person.dogs is mapped from the Person
    /// side through "PetToDog" (objects with new keys); Cat.owner from the Cat side
    /// through "PersonToPerson" (a plain mapping whose objects keep their keys). The
    /// person mapping comes first, before any dog exists: the relationship pass runs
    /// after every mapping made its objects.
    static func splitMapping(_ v1: ObjectModel, _ v2: ObjectModel, dogMapping: String = "PetToDog") throws -> MappingModel {
        MappingModel(from: v1, to: v2, entityMappings: [
            EntityMapping(name: "PersonToPerson", kind: .transform, sourceEntityName: "Person", destinationEntityName: "Person",
                          attributeMappings: [PropertyMapping(name: "name", value: .keyPath("name"))],
                          relationshipMappings: [PropertyMapping(name: "dogs", value: .destinationInstances(of: "pets", entityMapping: dogMapping))]),
            EntityMapping(name: "PetToDog", kind: .transform, sourceEntityName: "Pet", destinationEntityName: "Dog",
                          attributeMappings: [PropertyMapping(name: "name", value: .keyPath("name"))],
                          sourcePredicate: try Predicate(format: "species == 'dog'")),
            EntityMapping(name: "PetToCat", kind: .transform, sourceEntityName: "Pet", destinationEntityName: "Cat",
                          attributeMappings: [PropertyMapping(name: "name", value: .keyPath("name"))],
                          relationshipMappings: [PropertyMapping(name: "owner", value: .destinationInstances(of: "owner", entityMapping: "PersonToPerson"))],
                          sourcePredicate: try Predicate(format: "species == 'cat'")),
        ])
    }

    static let household: [(pet: String, species: String, owner: String?)] = [
        ("Rex", "dog", "Ada"), ("Tom", "cat", "Ada"), ("Fido", "dog", "Ada"), ("Kitty", "cat", "Grace"),
        ("Laika", "dog", "Grace"), ("Stray", "cat", nil), ("Lassie", "dog", nil), ("Mog", "cat", "Alan"),
    ]

    static func seedPets(_ path: String, _ v1: ObjectModel) throws {
        try InferredStore.create(at: path, model: v1) { context in
            var people: [String: ManagedObject] = [:]
            for name in ["Ada", "Grace", "Alan", "Edsger"] {
                let person = try context.insert("Person")
                try person.setValue(name, forKey: "name")
                people[name] = person
            }
            for entry in household {
                let pet = try context.insert("Pet")
                try pet.setValue(entry.pet, forKey: "name")
                try pet.setValue(entry.species, forKey: "species")
                try pet.setObject(entry.owner.flatMap { people[$0] }, forKey: "owner")
            }
        }
    }

    @Test func relationshipsFollowWhatTheRelatedObjectsBecameWithoutAPolicy() throws {
        let dir = try TemporaryDirectory("destinations-expression")
        defer { dir.remove() }
        let (v1, v2) = try Self.pets()
        try Self.seedPets(dir.path, v1)
        let mapping = try Self.splitMapping(v1, v2)
        #expect(mapping.entityMapping(named: "PersonToPerson")?.relationshipMappings.first?.description
                == "dogs ← destinationInstances(PetToDog, $source.pets)")
        try InferredStore.migrate(at: dir.path, to: v2, with: .mappings([mapping], models: [v2])) { context in
            let people = try context.keyedObjects("Person", by: "name")
            #expect(people.keys.sorted() == ["Ada", "Alan", "Edsger", "Grace"])
            for (name, person) in people {
                let pets = Self.household.filter { $0.owner == name }
                #expect(try person.objects("dogs").map { try $0.string("name") ?? "" }.sorted()
                        == pets.filter { $0.species == "dog" }.map(\.pet).sorted(), "\(name)")
                #expect(try person.objects("cats").map { try $0.string("name") ?? "" }.sorted()
                        == pets.filter { $0.species == "cat" }.map(\.pet).sorted(), "\(name)")
            }
            let dogs = try context.keyedObjects("Dog", by: "name")
            let cats = try context.keyedObjects("Cat", by: "name")
            #expect(dogs.count == 4 && cats.count == 4)
            for entry in Self.household {
                let pet = entry.species == "dog" ? dogs[entry.pet] : cats[entry.pet]
                #expect(try pet?.object("owner")?.string("name") == entry.owner, "\(entry.pet)")
            }
        }
    }

    @Test func anUnknownEntityMappingInTheExpressionWritesNothing() throws {
        let dir = try TemporaryDirectory("destinations-unknown")
        defer { dir.remove() }
        let (v1, v2) = try Self.pets()
        try Self.seedPets(dir.path, v1)
        let before = try DirectorySnapshot(dir.path)
        let mapping = try Self.splitMapping(v1, v2, dogMapping: "PetToWolf")
        let error = #expect(throws: StrataError.self) {
            _ = try ObjectStore(at: dir.path, model: v2, options: InferredStore.options(.mappings([mapping], models: [v2])))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.context["entityMapping"] == "PetToWolf")
        #expect(try DirectorySnapshot(dir.path) == before)
        let store = try ObjectStore(at: dir.path, model: v1)
        #expect(try store.newContext().keyedObjects("Pet", by: "name").count == Self.household.count)
        try store.close()
    }
}
