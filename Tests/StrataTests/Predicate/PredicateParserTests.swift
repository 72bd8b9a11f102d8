import Testing
@testable import Strata

@Suite("Predicate format parser")
struct PredicateParserTests {
    @Test("a comparison parses to the expected tree")
    func comparisonTree() throws {
        let predicate = try Predicate(format: "ANY employees.name BEGINSWITH[cd] 'jo'")
        let expected = Predicate.comparison(PredicateComparison(
            .keyPath("employees.name"), .beginsWith, .constant(.string("jo")),
            quantifier: .any, options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(predicate == expected)
    }

    @Test("AND binds tighter than OR; a chain is one flat list")
    func precedence() throws {
        let predicate = try Predicate(format: "a == 1 OR b == 2 AND c == 3 AND d == 4")
        guard case .or(let operands) = predicate, operands.count == 2, case .and(let conjuncts) = operands[1] else {
            Issue.record("unexpected tree \(predicate)")
            return
        }
        #expect(conjuncts.count == 3)
    }

    @Test("literals")
    func literals() throws {
        func rhs(_ format: String) throws -> PredicateExpression? {
            if case .comparison(let comparison) = try Predicate(format: format) { return comparison.rhs }
            return nil
        }
        #expect(try rhs("a == 42") == .constant(.int(42)))
        #expect(try rhs("a == -42") == .constant(.int(-42)))
        #expect(try rhs("a == 4.25") == .constant(.double(4.25)))
        #expect(try rhs("a == 1e3") == .constant(.double(1000)))
        #expect(try rhs("a == 2.5E-1") == .constant(.double(0.25)))
        #expect(try rhs(#"a == 'it\'s'"#) == .constant(.string("it's")))
        #expect(try rhs(#"a == "say \"hi\"""#) == .constant(.string("say \"hi\"")))
        #expect(try rhs(#"a == 'tab\there\nnew \\ \u00e9'"#) == .constant(.string("tab\there\nnew \\ é")))
        #expect(try rhs("a == yes") == .constant(.bool(true)))
        #expect(try rhs("a == No") == .constant(.bool(false)))
        #expect(try rhs("a == Null") == .constant(.null))
        #expect(try rhs("a IN {1, 'x', nil}") == .list([.constant(.int(1)), .constant(.string("x")), .constant(.null)]))
        #expect(try rhs("a == $min") == .variable("min"))
        #expect(try rhs("a == b.c") == .keyPath("b.c"))
        #expect(try rhs("a == b.@count") == .count("b"))
    }

    @Test("# escapes a reserved word used as a key")
    func escapedKeys() throws {
        let predicate = try Predicate(format: "#order.#in == 1")
        #expect(predicate == .comparison(PredicateComparison(.keyPath("order.in"), .equalTo, .constant(.int(1)))))
    }

    @Test("%K and %@ arguments")
    func positionalArguments() throws {
        #expect(try Predicate(format: "%K == %@", "age", Value.int(25)) == Predicate(format: "age == 25"))
        #expect(try Predicate(format: "%K == %@", "name", "Ann") == Predicate(format: "name == 'Ann'"))
        #expect(try Predicate(format: "%K.@count > %@", "employees", 3) == Predicate(format: "employees.@count > 3"))
        #expect(try Predicate(format: "age IN %@", [25, 30]) == Predicate(format: "age IN {25, 30}"))
        #expect(try Predicate(format: "age BETWEEN %@", [18, 65]) == Predicate(format: "age BETWEEN {18, 65}"))
        #expect(try Predicate(format: "nickname == %@", String?.none) == Predicate(format: "nickname == nil"))
        #expect(try Predicate(format: "%K == %@", argumentArray: ["age", 25]) == Predicate(format: "age == 25"))
    }

    @Test("the description parses back to an equal predicate", arguments: [
        "age == 25",
        "name BEGINSWITH[cd] 'jo'",
        "ANY employees.salary > 1000 OR employees.@count >= 3",
        "NOT (age < 18 OR age > 65) AND name != nil",
        "age IN {1, 2, 3} AND salary BETWEEN {1.5, 2.5}",
        #"name == 'it\'s' AND #order == $x"#,
        "hired > CAST('2026-01-01T00:00:00Z', 'NSDate')",
        "NONE employees.name LIKE[c] 'a*' AND ALL employees.age MATCHES '[0-9]+'",
        "TRUEPREDICATE AND NOT FALSEPREDICATE",
    ])
    func descriptionRoundTrip(_ format: String) throws {
        let predicate = try Predicate(format: format)
        #expect(try Predicate(format: predicate.description) == predicate, "\(predicate)")
    }
}
