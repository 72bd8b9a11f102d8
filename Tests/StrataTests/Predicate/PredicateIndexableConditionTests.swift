import Testing
@testable import Strata

@Suite("Predicate indexable conditions")
struct PredicateIndexableConditionTests {
    private func conditions(_ format: String) throws -> [IndexableCondition] {
        try Predicate(format: format).indexableConditions()
    }

    @Test("top-level AND-ed conditions on plain keys")
    func conjuncts() throws {
        let found = try conditions(
            "age >= 18 AND 65 > age AND name == 'Ann' AND city IN {'Oslo', 'Bern'} AND salary BETWEEN {1, 2} AND id == nil")
        #expect(found.map(\.key) == ["age", "age", "name", "city", "salary", "id"])
        #expect(found[0].kind == .range(lower: .init(.int(18), inclusive: true), upper: nil))
        #expect(found[1].kind == .range(lower: nil, upper: .init(.int(65), inclusive: false)))
        #expect(found[2].kind == .equalTo(.string("Ann")))
        #expect(found[3].kind == .oneOf([.string("Oslo"), .string("Bern")]))
        #expect(found[4].kind == .range(lower: .init(.int(1), inclusive: true), upper: .init(.int(2), inclusive: true)))
        #expect(found[5].kind == .equalTo(.null))
        #expect(found[2].source == (try Predicate(format: "name == 'Ann'")))
    }

    @Test("a single comparison is its own condition")
    func single() throws {
        #expect(try conditions("age < 30").map(\.kind) == [.range(lower: nil, upper: .init(.int(30), inclusive: false))])
        #expect(try conditions("30 == age").map(\.kind) == [.equalTo(.int(30))])
    }

    @Test("what an index cannot serve is left out", arguments: [
        "age == 1 OR name == 'x'",
        "NOT age == 1",
        "department.name == 'R&D'",
        "name ==[c] 'ann'",
        "name BEGINSWITH 'A'",
        "ANY employees.age == 3",
        "age == $x",
        "age IN $list",
        "age == salary",
        "age < nil",
        "employees.@count == 3",
        "'x' IN tags",
        "age IN {1, $x}",
        "TRUEPREDICATE",
    ])
    func leftOut(_ format: String) throws {
        #expect(try conditions(format).isEmpty)
    }
}
