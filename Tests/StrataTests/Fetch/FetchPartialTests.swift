import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Fetch: propertiesToFetch (partial faulting)")
struct FetchPartialTests {
    @Test("only the named values are loaded; reading another loads the whole record", arguments: FetchFixtures.Kind.underTest)
    func partial(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            var request = FetchRequest(entityName: "Employee")
            request.propertiesToFetch = ["name"]
            store.resetStatistics()
            let employees = try context.fetch(request)
            #expect(store.statistics.recordsDecoded == 5) // loaded by the fetch: not faults
            #expect(employees.allSatisfy { !$0.isFault })
            #expect(employees.allSatisfy { $0.loadedFieldNumbers == [0] })
            // Only `name` is held; the other fields are not kept in memory.
            let held = try #require(employees[0].stored)
            #expect(held.fields.enumerated().allSatisfy { $0.offset == 0 || $0.element == .null })

            #expect(try FetchFixtures.firstNames(employees) == ["Ann", "Bob", "Cid", "Dana", "Eve"])
            #expect(store.statistics.recordsDecoded == 5) // names came from memory

            // Another property: a full load, of the object and its partial siblings.
            #expect(try employees[0].int("age") == 30)
            #expect(store.statistics.recordsDecoded == 10)
            #expect(employees.allSatisfy { $0.loadedFieldNumbers == nil })
            #expect(try employees[3].string("city") == "Paris")
            #expect(try employees[0].object("department")?.string("name") == "R&D")
            #expect(store.statistics.recordsDecoded == 11) // + R&D
        }
    }

    @Test("with a predicate, sort keys and a relationship among the properties")
    func partialWithPredicate() throws {
        try FetchFixtures.withStore(.onDisk) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            var request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "salary > 1000"))
            request.sortKeys = [.descending("salary")]
            request.propertiesToFetch = ["name", "department"]
            let employees = try context.fetch(request)
            #expect(try FetchFixtures.firstNames(employees) == ["Eve", "Cid", "Dana", "Ann"])
            #expect(employees.allSatisfy { $0.loadedFieldNumbers?.count == 2 })
            #expect(try employees[1].object("department")?.string("name") == "Sales")
            #expect(employees[1].loadedFieldNumbers != nil) // still partial
            #expect(try employees[1].double("salary") == 3000)
            // Completing one completes its partial siblings, found by position in the
            // sorted results (their keys do not ascend).
            #expect(employees.allSatisfy { $0.loadedFieldNumbers == nil })
            #expect(try employees.map { try $0.double("salary") } == [5000, 3000, 2500, 1500.5])
        }
    }

    @Test("a partial object can be changed and saved whole")
    func partialThenSave() throws {
        try FetchFixtures.withStore(.onDisk) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            var request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 22"))
            request.propertiesToFetch = ["name"]
            let cid = try #require(try context.fetch(request).first)
            try cid.setValue("Cid V.", forKey: "name") // completes the record first
            try context.save()
            let reader = store.newContext()
            let again = try reader.existingObject(with: cid.objectID)
            #expect(try again.string("name") == "Cid V.")
            #expect(try again.double("salary") == 3000)
            #expect(try again.string("city") == "Zurich")
            #expect(try again.object("department")?.string("name") == "Sales")
        }
    }

    @Test("objects already loaded in the context stay whole")
    func loadedStayWhole() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let all = try context.fetch(FetchRequest(entityName: "Employee"))
            _ = try all[0].string("name")
            var request = FetchRequest(entityName: "Employee")
            request.propertiesToFetch = ["name"]
            let partial = try context.fetch(request)
            #expect(partial[0] === all[0])
            #expect(partial[0].loadedFieldNumbers == nil)
            #expect(try partial[0].int("age") == 30)
        }
    }
}
