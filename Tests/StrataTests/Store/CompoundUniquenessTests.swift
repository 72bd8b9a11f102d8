import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// Compound uniqueness constraints enforced at save and at batch insert; migration is
/// in Migration/MigrationUniquenessTests.
@Suite("Compound uniqueness")
struct CompoundUniquenessTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Person", uniquenessConstraints: [["firstName", "lastName"]]) {
                Attribute("firstName", .string)
                Attribute("lastName", .string, optional: true)
            }
            Entity("Player", parent: "Person") { Attribute("number", .int16, default: .int(0)) }
        }
    }

    static func person(_ context: ObjectContext, _ first: String, _ last: String?, entity: String = "Person") throws -> ManagedObject {
        let person = try context.insert(entity)
        try person.setValue(first, forKey: "firstName")
        if let last { try person.setValue(last, forKey: "lastName") }
        return person
    }

    @Test func saveRefusesTheSameValuesTakenTogether() throws {
        let dir = try TemporaryDirectory("compound-save")
        defer { dir.remove() }
        let path = dir.appending("People.strata")
        let store = try ObjectStore(at: path, model: try Self.model())
        defer { try? store.close() }
        let context = store.newContext()
        let ann = try Self.person(context, "Ann", "Lee")
        _ = try Self.person(context, "Ann", "Kim")       // same first name: fine
        _ = try Self.person(context, "Bob", "Lee")       // same last name: fine
        _ = try Self.person(context, "Ann", nil)         // null-distinct
        _ = try Self.person(context, "Ann", nil)
        try context.save()

        // Against the store, and a sub-entity shares its parent's scope.
        let before = try DirectorySnapshot(path)
        let again = store.newContext()
        let twin = try Self.person(again, "Ann", "Lee", entity: "Player")
        let error = #expect(throws: StrataError.self) { try again.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.context["entity"] == "Person")
        #expect(error?.context["properties"] == "firstName,lastName")
        #expect(error?.context["value"] == "(\"Ann\", \"Lee\")")
        #expect(error?.context["duplicates"]?.contains(ann.objectID.description) == true)
        #expect(error?.context["objects"]?.contains(twin.objectID.description) == true)
        #expect(try DirectorySnapshot(path) == before)

        // Within one save.
        let third = store.newContext()
        _ = try Self.person(third, "Cy", "Ng")
        _ = try Self.person(third, "Cy", "Ng")
        #expect(throws: StrataError.self) { try third.save() }

        // Changing one of the two frees the pair.
        try twin.setValue("Anna", forKey: "firstName")
        try again.save()
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Person")) == 6)
    }

    @Test func batchInsertRefusesTheSameValuesTakenTogether() throws {
        let store = try ObjectStore.inMemory(model: try Self.model())
        let ids = try store.batchInsert(entityName: "Person", objects: [
            ["firstName": .string("Ann"), "lastName": .string("Lee")],
            ["firstName": .string("Ann"), "lastName": .string("Kim")],
        ])
        let stored = #expect(throws: StrataError.self) {
            try store.batchInsert(entityName: "Player", objects: [["firstName": .string("Ann"), "lastName": .string("Lee")]])
        }
        #expect(stored?.code == .uniquenessViolation)
        #expect(stored?.context["properties"] == "firstName,lastName")
        #expect(stored?.context["value"] == "(\"Ann\", \"Lee\")")
        #expect(stored?.context["objects"]?.contains(ids[0].uriRepresentation) == true)
        let within = #expect(throws: StrataError.self) {
            try store.batchInsert(entityName: "Person", objects: [
                ["firstName": .string("Bo"), "lastName": .string("Ng")],
                ["firstName": .string("Bo"), "lastName": .string("Ng")],
            ])
        }
        #expect(within?.code == .uniquenessViolation)
        #expect(within?.context["index"] == "1")
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Person")) == 2)
    }
}
