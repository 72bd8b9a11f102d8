import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// One row of the fetch table: an entity, a format string, the first names (or
/// department names) expected, in key order.
struct FetchCase: CustomTestStringConvertible, Sendable {
    var entity: String
    var format: String
    var expected: [String]
    var testDescription: String { "\(entity): \(format)" }

    static func employees(_ format: String, _ expected: [String]) -> FetchCase { FetchCase(entity: "Employee", format: format, expected: expected) }
    static func departments(_ format: String, _ expected: [String]) -> FetchCase { FetchCase(entity: "Department", format: format, expected: expected) }
}

@Suite("Fetch: every operator through a real store")
struct FetchPredicateTableTests {
    static let cases: [FetchCase] = [
        // Comparisons (age is indexed: these go through the index; salary is not)
        .employees("age == 30", ["Ann", "Dana"]), .employees("age != 30", ["Bob", "Cid", "Eve"]),
        .employees("age < 30", ["Cid"]), .employees("age <= 30", ["Ann", "Cid", "Dana"]),
        .employees("age > 45", ["Eve"]), .employees("age >= 45", ["Bob", "Eve"]),
        .employees("30 == age", ["Ann", "Dana"]), .employees("age == 30.0", ["Ann", "Dana"]),
        .employees("age == 30.5", []), .employees("age > 29.5 AND age < 30.5", ["Ann", "Dana"]),
        .employees("salary > 2000", ["Cid", "Dana", "Eve"]), .employees("salary == 900", ["Bob"]),
        .employees("salary == 1500.5", ["Ann"]), .employees("salary <= 1500.5", ["Ann", "Bob"]),
        // String operators with [c] and [d]
        .employees("name == 'Ann Lee'", ["Ann"]), .employees("name ==[c] 'ANN LEE'", ["Ann"]),
        .employees("name BEGINSWITH 'Ann'", ["Ann"]), .employees("name BEGINSWITH 'ann'", []),
        .employees("name BEGINSWITH[c] 'ann'", ["Ann"]),
        .employees("name ENDSWITH 'Kim'", ["Dana"]), .employees("name ENDSWITH[c] 'KIM'", ["Dana"]),
        .employees("name CONTAINS 'o'", ["Bob", "Eve"]), .employees("name CONTAINS[c] 'A'", ["Ann", "Cid", "Dana"]),
        .employees("city == 'Zurich'", ["Cid"]), .employees("city ==[d] 'Zurich'", ["Ann", "Cid"]),
        .employees("city ==[cd] 'ZURICH'", ["Ann", "Cid"]), .employees("city BEGINSWITH[cd] 'zu'", ["Ann", "Cid"]),
        .employees("city LIKE 'Ber*'", ["Bob", "Eve"]), .employees("city LIKE[c] 'p?ris'", ["Dana"]),
        .employees("city LIKE 'p?ris'", []),
        .employees("name MATCHES '[A-C].*'", ["Ann", "Bob", "Cid"]), .employees("city MATCHES[cd] 'zurich'", ["Ann", "Cid"]),
        // IN and BETWEEN
        .employees("age IN {22, 51}", ["Cid", "Eve"]), .employees("name IN {'Ann Lee', 'Nobody'}", ["Ann"]),
        .employees("age BETWEEN {25, 45}", ["Ann", "Bob", "Dana"]), .employees("salary BETWEEN {900, 1500.5}", ["Ann", "Bob"]),
        // AND / OR / NOT
        .employees("age == 30 AND salary > 2000", ["Dana"]), .employees("age == 22 OR age == 51", ["Cid", "Eve"]),
        .employees("NOT age == 30", ["Bob", "Cid", "Eve"]), .employees("NOT (age == 30 OR city == 'Berlin')", ["Cid"]),
        .employees("TRUEPREDICATE", ["Ann", "Bob", "Cid", "Dana", "Eve"]), .employees("FALSEPREDICATE", []),
        // Booleans, dates, nil
        .employees("active == NO", ["Bob"]), .employees("active == TRUE", ["Ann", "Cid", "Dana", "Eve"]),
        .employees("nickname == nil", ["Ann", "Cid", "Eve"]), .employees("nickname != nil", ["Bob", "Dana"]),
        .employees("hired == nil", ["Cid", "Eve"]),
        .employees("hired > CAST(599529600, 'NSDate')", ["Bob"]), // after 2020-01-01
        // Key paths through a to-one
        .employees("department.name == 'Sales'", ["Cid", "Dana"]), .employees("department == nil", ["Eve"]),
        .employees("department.budget > 500000", ["Ann", "Bob"]), .employees("department.name BEGINSWITH[c] 'r'", ["Ann", "Bob"]),
        // ANY / ALL / NONE and @count over a to-many (derived from the to-one side)
        .departments("ANY employees.age > 40", ["R&D"]), .departments("ALL employees.age >= 30", ["R&D", "Empty"]),
        .departments("NONE employees.age > 40", ["Sales", "Empty"]), .departments("employees.@count == 2", ["R&D", "Sales"]),
        .departments("employees.@count == 0", ["Empty"]), .departments("ANY employees.name BEGINSWITH[c] 'd'", ["Sales"]),
        .departments("ANY employees.city ==[d] 'Zurich'", ["R&D", "Sales"]),
        .departments("name == 'Sales'", ["Sales"]), // indexed String equality
    ]

    @Test("fetch", arguments: cases, FetchFixtures.Kind.underTest)
    func fetch(_ testCase: FetchCase, kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let request = FetchRequest(entityName: testCase.entity, predicate: try Strata.Predicate(format: testCase.format))
            let objects = try context.fetch(request)
            let names = testCase.entity == "Employee" ? try FetchFixtures.firstNames(objects) : try objects.map { try $0.string("name") ?? "" }
            #expect(names == testCase.expected)
            #expect(try context.count(for: request) == testCase.expected.count)
            #expect(try context.fetchObjectIDs(request) == objects.map(\.objectID))
        }
    }

    @Test("$variables substitute before the fetch", arguments: FetchFixtures.Kind.underTest)
    func variables(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let template = try Strata.Predicate(format: "age >= $minimum AND department.name == $department")
            let request = FetchRequest(entityName: "Employee", predicate: try template.withSubstitutionVariables(["minimum": 30, "department": "Sales"]))
            #expect(try FetchFixtures.firstNames(context.fetch(request)) == ["Dana"])
            let listed = try Strata.Predicate(format: "age IN $ages").withSubstitutionVariables(["ages": [22, 45]])
            #expect(try FetchFixtures.firstNames(context.fetch(FetchRequest(entityName: "Employee", predicate: listed))) == ["Bob", "Cid"])

            // A template fetched as it is: an error naming the variable, not an empty result.
            let error = #expect(throws: StrataError.self) { try context.fetch(FetchRequest(entityName: "Employee", predicate: template)) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.context["variable"] == "department")
        }
    }

    @Test("the Swift builder fetches as the format string does")
    func builder() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let built: Strata.Predicate = .key("age") >= 30 && .key("name").beginsWith("d", caseInsensitive: true)
            #expect(try FetchFixtures.firstNames(context.fetch(FetchRequest(entityName: "Employee", predicate: built))) == ["Dana"])
        }
    }
}
