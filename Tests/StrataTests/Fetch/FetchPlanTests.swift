import Foundation
import StrataLog
import Testing
import StrataTestSupport
@testable import Strata

/// The planner's choices, as `FetchRequest.explain(in:)` reports them, and what a
/// compiled fetch does not do: make an object for a candidate that is not a result.
@Suite("Fetch: the planner's choices")
struct FetchPlanTests {
    static func request(_ format: String?, sort: [SortKey] = [], limit: Int? = nil, offset: Int = 0, entity: String = "Employee") throws -> FetchRequest {
        var request = FetchRequest(entityName: entity, predicate: try format.map { try Strata.Predicate(format: $0) }, sortKeys: sort)
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    @Test("which plan for which request", arguments: FetchFixtures.Kind.underTest)
    func plans(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            func plan(_ format: String?, sort: [SortKey] = [], limit: Int? = nil, offset: Int = 0) throws -> FetchPlan {
                try Self.request(format, sort: sort, limit: limit, offset: offset).explain(in: context)
            }
            // No predicate, no sort: keys only.
            #expect(try plan(nil) == FetchPlan(entityName: "Employee", access: .keys, filter: .none, order: .keyOrder(stopsAfter: nil), sortKeys: []))
            // An attribute without an index: a scan judged on records.
            let scan = try plan("salary > 1000")
            #expect(scan.access == .scan)
            #expect(scan.filter == .records)
            #expect(scan.order == .keyOrder(stopsAfter: nil))
            // An indexed attribute: the index's candidates, judged on records.
            #expect(try plan("age == 42").access == .index(conditions: ["age == 42"]))
            #expect(try plan("age >= 30 AND age < 40 AND salary > 5").access == .index(conditions: ["age >= 30", "age < 40"]))
            #expect(try plan("age BETWEEN {30, 40}").filter == .records)
            // Under an OR, or with [c], the index cannot serve.
            #expect(try plan("age == 42 OR salary > 1").access == .scan)
            // A unique attribute has an index too.
            guard case .index(let conditions) = try plan("email == 'ann@example.com'").access else {
                Issue.record("a unique attribute's index was not used")
                return
            }
            #expect(conditions.count == 1 && conditions[0].hasPrefix("email =="))
            // Key paths through to-one relationships are judged on records (the
            // destinations' records read once each); an object's to-one is found
            // through the relationship's index.
            #expect(try plan("department.name == 'Sales'").filter == .records)
            #expect(try plan("department.name == 'Sales'").access == .scan)
            let rd = try #require(try context.fetch(FetchRequest(entityName: "Department", predicate: try Strata.Predicate(format: "name == 'R&D'"))).first)
            let byDepartment = try FetchRequest(entityName: "Employee", predicate: Strata.Predicate(format: "department == %@ AND salary > 1000", rd)).explain(in: context)
            #expect(byDepartment.filter == .records)
            guard case .index(let served) = byDepartment.access, served.count == 1, served[0].hasPrefix("department ==") else {
                Issue.record("department == object was not served by the relationship's index: \(byDepartment.access)")
                return
            }
            // Through a to-many relationship, and transient attributes: judged on objects.
            guard case .objects(let reason) = try FetchRequest(entityName: "Department", predicate: try Strata.Predicate(format: "ANY employees.age > 40")).explain(in: context).filter else {
                Issue.record("a key path through a to-many relationship was compiled")
                return
            }
            #expect(reason.contains("to-many"))
            guard case .objects = try plan("mood == 'fine'").filter else {
                Issue.record("a transient attribute was compiled")
                return
            }
            // A sort key through a to-one too; one that ends at a relationship is the
            // interpreter's to refuse.
            #expect(try plan("name != nil", sort: [.ascending("department.name")]).filter == .records)
            guard case .objects = try plan("name != nil", sort: [.ascending("department")]).filter else {
                Issue.record("a sort key naming a relationship was compiled")
                return
            }
            // Orders: top-k with sort keys and a limit, everything sorted without a limit,
            // key order stopping early without sort keys.
            #expect(try plan("salary > 0", sort: [.descending("salary")], limit: 2, offset: 1).order == .top(count: 3))
            #expect(try plan("salary > 0", sort: [.descending("salary")]).order == .sortAll)
            #expect(try plan(nil, sort: [.ascending("name")], limit: 2).order == .top(count: 2))
            #expect(try plan("salary > 0", limit: 2, offset: 1).order == .keyOrder(stopsAfter: 3))
            // Misspelt key paths fail as a fetch does.
            let error = #expect(throws: StrataError.self) { try plan("salry > 0") }
            #expect(error?.code == .unknownKeyPath)
            // The text, SQLite style.
            let text = try plan("age == 42", sort: [.descending("salary")], limit: 20).description
            #expect(text == "SEARCH Employee USING INDEX (age == 42)\nFILTER ON RECORDS (compiled)\nORDER BY salary DESC: TOP 20 (bounded heap)")
        }
    }

    @Test("BEGINSWITH on an indexed string reads an index range", arguments: FetchFixtures.Kind.underTest)
    func prefixRange(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let request = try Self.request("email BEGINSWITH 'da' AND age > 1")
            guard case .index(let conditions) = try request.explain(in: context).access else {
                Issue.record("BEGINSWITH on a unique attribute did not use its index")
                return
            }
            #expect(conditions.count == 2 && conditions.contains { $0.hasPrefix("email BEGINSWITH") })
            store.resetStatistics()
            #expect(try FetchFixtures.firstNames(context.fetch(request)) == ["Dana"])
            #expect(store.statistics.recordsDecoded == 1) // only the index's candidate was read
            // Folding, a non-ASCII prefix or an attribute without an index: a scan, same answers.
            for format in ["email BEGINSWITH[c] 'DA'", "name BEGINSWITH 'Da'"] {
                let scan = try Self.request(format)
                #expect(try scan.explain(in: context).access == .scan, "\(format)")
                #expect(try FetchFixtures.firstNames(store.newContext().fetch(scan)) == ["Dana"], "\(format)")
            }
            #expect(try Self.request("email BEGINSWITH 'é'").explain(in: context).access == .scan)
            #expect(try store.newContext().fetch(try Self.request("name BEGINSWITH 'Sa'", entity: "Department")).count == 1)
        }
    }

    @Test("a compiled fetch makes objects for its results only", arguments: FetchFixtures.Kind.underTest)
    func objectsForResultsOnly(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            store.resetStatistics()
            let found = try context.fetch(try Self.request("salary > 0", sort: [.descending("salary")], limit: 2))
            #expect(found.count == 2)
            // Every employee's record was judged; only the two results became objects,
            // loaded by the fetch (reading them reads nothing more).
            #expect(store.statistics.recordsDecoded == 5)
            #expect(context.registry.count == 2)
            #expect(found.allSatisfy { !$0.isFault })
            _ = try found.map { try $0.string("name") }
            #expect(store.statistics.recordsDecoded == 5)
            // Counting and listing ids make no object at all.
            let counter = store.newContext()
            #expect(try counter.count(for: try Self.request("salary > 0")) == 5)
            #expect(try counter.fetchObjectIDs(try Self.request("age < 40", sort: [.ascending("name")])).count >= 1)
            #expect(counter.registry.isEmpty)
        }
    }

    @Test("the interpreted path is there when asked for, and agrees")
    func interpretedOnRequest() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            context.interpretsFetches = true
            let request = try Self.request("salary > 0", sort: [.ascending("name")], limit: 3)
            guard case .objects = try request.explain(in: context).filter else {
                Issue.record("interpretsFetches did not take the object path")
                return
            }
            let interpreted = try context.fetch(request).map(\.objectID)
            #expect(try store.newContext().fetch(request).map(\.objectID) == interpreted)
        }
    }
}
