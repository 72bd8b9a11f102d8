import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Fetch: errors name what is wrong")
struct FetchErrorTests {
    static func fetch(_ request: FetchRequest) throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            _ = try store.newContext().fetch(request)
        }
    }

    @Test("a misspelt key path names the entity and the key path", arguments: [
        ("agee == 25", "Employee", "agee"),
        ("department.nmae == 'Sales'", "Department", "department.nmae"),
        ("ANY department.employees.agee > 3", "Employee", "department.employees.agee"),
    ])
    func misspeltKeyPath(format: String, entity: String, keyPath: String) throws {
        let error = #expect(throws: StrataError.self) {
            try Self.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: format)))
        }
        #expect(error?.code == .unknownKeyPath)
        #expect(error?.context["entity"] == entity)
        #expect(error?.context["keyPath"] == keyPath)
        #expect(error?.message.contains(entity) == true)
    }

    @Test("a syntax error names the position", arguments: [("age == ", 7), ("age >> 3", 5), ("name BEGINSWITH", 15)])
    func syntaxError(format: String, position: Int) {
        let error = #expect(throws: StrataError.self) { _ = try Strata.Predicate(format: format) }
        #expect(error?.code == .predicateSyntax)
        #expect(error?.context["position"] == String(position), "\(String(describing: error))")
        #expect(error?.message.contains("position \(position)") == true)
    }

    @Test("a misspelt sort key, property to fetch or entity is an error too")
    func otherNames() throws {
        var sorted = FetchRequest(entityName: "Employee")
        sorted.sortKeys = [.ascending("salry")]
        let sortError = #expect(throws: StrataError.self) { try Self.fetch(sorted) }
        #expect(sortError?.code == .unknownKeyPath)
        #expect(sortError?.context["keyPath"] == "salry")

        var partial = FetchRequest(entityName: "Employee")
        partial.propertiesToFetch = ["nmae"]
        let partialError = #expect(throws: StrataError.self) { try Self.fetch(partial) }
        #expect(partialError?.code == .unknownKeyPath)
        #expect(partialError?.context["keyPath"] == "nmae")

        let entityError = #expect(throws: StrataError.self) { try Self.fetch(FetchRequest(entityName: "Employe")) }
        #expect(entityError?.code == .unknownKeyPath)
        #expect(entityError?.context["entity"] == "Employe")
    }

    @Test("comparing across kinds is a type error before anything is read")
    func typeMismatch() throws {
        let error = #expect(throws: StrataError.self) {
            try Self.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "name > 3")))
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.context["entity"] == "Employee")
    }
}
