import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// Reordering properties is not a model change (the version hash does not cover the
/// order, as in Core Data), so a store opens with the reordered model — and must read
/// it as it was written: were fields and index numbers to follow the given model's
/// order, values would land in the wrong attributes, index lookups would find nothing
/// and a unique attribute would take a duplicate.
@Suite struct PropertyOrderTests {
    static func model(reversed: Bool) throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Person") {
                if reversed {
                    Relationship("team", to: "Team", inverse: "people")
                    Attribute("age", .int64, indexed: true)
                    Attribute("email", .string, unique: true)
                    Attribute("name", .string)
                } else {
                    Attribute("name", .string)
                    Attribute("email", .string, unique: true)
                    Attribute("age", .int64, indexed: true)
                    Relationship("team", to: "Team", inverse: "people")
                }
            }
            Entity("Team") {
                Attribute("title", .string)
                Relationship("people", to: "Person", inverse: "team", toMany: true)
            }
        }
    }

    static func options(_ memory: InMemoryFileSystem) -> StoreOptions {
        var options = StoreOptions()
        options.fileSystem = memory
        options.logger = .quiet
        return options
    }

    @Test func aStoreOpensWithItsPropertiesReorderedAndReadsTheSameValues() throws {
        let written = try Self.model(reversed: false), reordered = try Self.model(reversed: true)
        #expect(written.versionHash == reordered.versionHash)
        let memory = InMemoryFileSystem()
        let store = try ObjectStore(at: "/store", model: written, options: Self.options(memory))
        let context = store.newContext()
        let team = try context.insert("Team")
        try team.setValue("Core", forKey: "title")
        for (name, age) in [("Ada", 36), ("Grace", 45)] {
            let person = try context.insert("Person")
            try person.setValue(.string(name), forKey: "name")
            try person.setValue(.string("\(name.lowercased())@example.com"), forKey: "email")
            try person.setValue(.int(Int64(age)), forKey: "age")
            try person.setObject(team, forKey: "team")
        }
        try context.save()
        try store.close()

        let reopened = try ObjectStore(at: "/store", model: reordered, options: Self.options(memory))
        defer { try? reopened.close() }
        let reader = reopened.newContext()
        let people = try reader.fetch(FetchRequest(entityName: "Person", sortKeys: [.ascending("name")]))
        #expect(try people.map { try $0.value(forKey: "name") } == [.string("Ada"), .string("Grace")])
        #expect(try people.map { try $0.value(forKey: "age") } == [.int(36), .int(45)])
        #expect(try people.map { try $0.object("team")?.value(forKey: "title") } == [.string("Core"), .string("Core")])
        let byAge = try reader.fetch(FetchRequest(entityName: "Person", predicate: try Strata.Predicate(format: "age == 45")))
        #expect(try byAge.map { try $0.value(forKey: "name") } == [.string("Grace")])
        let byEmail = try reader.fetch(FetchRequest(entityName: "Person", predicate: try Strata.Predicate(format: "email == 'ada@example.com'")))
        #expect(byEmail.count == 1)

        let writer = reopened.newContext()
        let copy = try writer.insert("Person")
        try copy.setValue(.string("Ada again"), forKey: "name")
        try copy.setValue(.string("ada@example.com"), forKey: "email")
        try copy.setValue(.int(1), forKey: "age")
        let error = #expect(throws: StrataError.self) { try writer.save() }
        #expect(error?.code == .validationFailed)
        #expect(try reopened.verify().isSound)
    }

    @Test func reorderingIsNotAModelChange() throws {
        #expect(try Self.model(reversed: false).versionHash == Self.model(reversed: true).versionHash)
        // The store keeps the order it was written with; a new store takes the given one.
        let memory = InMemoryFileSystem()
        let store = try ObjectStore(at: "/fresh", model: try Self.model(reversed: true), options: Self.options(memory))
        #expect(try store.schema.layout("Person").fields.map(\.name) == ["team", "age", "email", "name"])
        try store.close()
        let reopened = try ObjectStore(at: "/fresh", model: try Self.model(reversed: false), options: Self.options(memory))
        #expect(try reopened.schema.layout("Person").fields.map(\.name) == ["team", "age", "email", "name"])
        try reopened.close()
    }
}
