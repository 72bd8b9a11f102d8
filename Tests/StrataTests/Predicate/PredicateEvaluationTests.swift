import Testing
@testable import Strata

/// One row of the operator table: a format string and what it gives for Ann.
struct EvaluationCase: CustomTestStringConvertible, Sendable {
    var format: String
    var expected: Bool
    var testDescription: String { "\(format) → \(expected)" }
    init(_ format: String, _ expected: Bool) {
        self.format = format
        self.expected = expected
    }
}

@Suite("Predicate evaluation")
struct PredicateEvaluationTests {
    static let operatorCases: [EvaluationCase] = [
        // Comparisons and their spellings
        .init("age == 30", true), .init("age = 30", true), .init("age == 31", false),
        .init("age != 31", true), .init("age <> 30", false), .init("age != 30", false),
        .init("age < 31", true), .init("age < 30", false), .init("age <= 30", true), .init("age =< 30", true),
        .init("age > 29", true), .init("age > 30", false), .init("age >= 30", true), .init("age => 31", false),
        .init("age == -5", false), .init("-5 < age", true), .init("31 > age", true),
        // Numbers across int, double and decimal
        .init("age == 30.0", true), .init("salary > 1500", true), .init("salary == 1500.5", true),
        .init("salary > 1.5e3", true), .init("bonus == 200", true), .init("bonus > 199.5", true),
        .init("age < bonus", true), .init("bonus >= salary", false),
        // Strings
        .init("name == 'Ann Lee'", true), .init("name == \"Ann Lee\"", true), .init("name == 'ann lee'", false),
        .init("name ==[c] 'ann lee'", true), .init("name !=[c] 'ANN LEE'", false),
        .init("name < 'Bob'", true), .init("name > 'Ann'", true), .init("name <[c] 'ann m'", true),
        .init("name BEGINSWITH 'Ann'", true), .init("name BEGINSWITH 'ann'", false), .init("name BEGINSWITH[c] 'ann'", true),
        .init("name ENDSWITH 'Lee'", true), .init("name ENDSWITH 'LEE'", false), .init("name ENDSWITH[c] 'LEE'", true),
        .init("name CONTAINS 'n L'", true), .init("name CONTAINS 'x'", false), .init("name CONTAINS[c] 'N l'", true),
        // Diacritics
        .init("city == 'Zurich'", false), .init("city ==[d] 'Zurich'", true), .init("city ==[cd] 'zurich'", true),
        .init("city BEGINSWITH[d] 'Zu'", true), .init("city BEGINSWITH[c] 'zu'", false),
        .init("city BEGINSWITH[cd] 'ZU'", true), .init("city ENDSWITH[d] 'rich'", true), .init("city CONTAINS[cd] 'URI'", true),
        .init("city LIKE[cd] 'zur*'", true), .init("city MATCHES[d] 'Zurich'", true), .init("city MATCHES 'Zurich'", false),
        // LIKE
        .init("name LIKE 'Ann*'", true), .init("name LIKE 'A?n Lee'", true), .init("name LIKE 'a*'", false),
        .init("name LIKE[c] 'a*'", true), .init("name LIKE '*Lee'", true), .init("name LIKE '*'", true),
        .init("name LIKE 'Ann'", false), .init("name LIKE '*n*L?e'", true), .init("name LIKE '??? ???'", true),
        .init("name LIKE '?'", false), .init(#"code LIKE 'A\*B'"#, true), .init(#"name LIKE 'A\*'"#, false),
        // MATCHES: a regular expression over the whole string
        .init("name MATCHES 'A.. L.e'", true), .init("name MATCHES 'Ann'", false), .init("name MATCHES 'Ann|Ann Lee'", true),
        .init("name MATCHES '[a-z ]+'", false), .init("name MATCHES[c] '[a-z ]+'", true),
        // IN and BETWEEN
        .init("age IN {29, 30}", true), .init("age IN {1, 2}", false), .init("age IN {}", false),
        .init("age IN {30.0}", true), .init("name IN {'ann lee', 'bo'}", false), .init("name IN[c] {'ann lee', 'bo'}", true),
        .init("age BETWEEN {30, 40}", true), .init("age BETWEEN {20, 30}", true), .init("age BETWEEN {31, 40}", false),
        .init("salary BETWEEN {1500, 1500.5}", true), .init("name BETWEEN {'A', 'B'}", true),
        // nil
        .init("nickname == nil", true), .init("nickname == NULL", true), .init("nickname == NIL", true),
        .init("nil == nickname", true), .init("nickname != nil", false), .init("name != nil", true), .init("name == nil", false),
        .init("nickname < 5", false), .init("nickname > 5", false), .init("nickname BEGINSWITH 'a'", false),
        .init("nickname BETWEEN {1, 2}", false), .init("nickname IN {nil}", true),
        // Booleans
        .init("active == YES", true), .init("active == TRUE", true), .init("active == true", true),
        .init("active == NO", false), .init("active == FALSE", false), .init("active == 1", true),
        // To-one key paths
        .init("department.name == 'R&D'", true), .init("department.budget > 1000", true), .init("department != nil", true),
        .init("department == nil", false), .init("department.manager == nil", true), .init("department.manager.name == nil", true),
        // Dates
        .init("hired < CAST('2021-01-01T00:00:00Z', 'NSDate')", true),
        .init("hired == CAST('2020-01-01T00:00:00Z', 'NSDate')", true),
        .init("hired == CAST(599529600, 'NSDate')", true),
        // Logic, precedence and keywords in any case
        .init("TRUEPREDICATE", true), .init("FALSEPREDICATE", false), .init("NOT FALSEPREDICATE", true),
        .init("!(age == 30)", false), .init("NOT age == 1", true), .init("not not age == 30", true),
        .init("age == 30 AND name BEGINSWITH 'A'", true), .init("age == 30 && name BEGINSWITH 'B'", false),
        .init("age == 1 OR age == 30", true), .init("age == 1 || age == 2", false),
        .init("age == 1 OR age == 30 AND name == 'x'", false), .init("(age == 1 OR age == 30) AND name == 'Ann Lee'", true),
        .init("age == 30 and not (name beginswith 'B')", true), .init("truepredicate or falsepredicate", true),
    ]

    @Test("every operator and modifier", arguments: operatorCases)
    func operatorTable(_ testCase: EvaluationCase) throws {
        let predicate = try Predicate(format: testCase.format)
        #expect(try predicate.evaluate(with: PredicateFixtures.ann) == testCase.expected)
    }

    static let aggregateCases: [EvaluationCase] = [
        .init("ANY employees.salary > 1000", true), .init("ANY employees.salary > 5000", false),
        .init("SOME employees.age < 25", true), .init("any employees.age < 20", false),
        .init("ALL employees.age >= 22", true), .init("ALL employees.age > 22", false),
        .init("NONE employees.age > 50", true), .init("NONE employees.age > 40", false),
        .init("employees.@count == 3", true), .init("employees.@count > 3", false), .init("employees.@COUNT >= 3", true),
        .init("ANY employees.name BEGINSWITH[c] 'b'", true), .init("ALL employees.name LIKE '???'", true),
        .init("'Bob' IN employees.name", true), .init("'Dan' IN employees.name", false),
        .init("ANY employees.age IN {45, 46}", true), .init("ANY employees.age BETWEEN {40, 50}", true),
        .init("NOT (ANY employees.salary < 100)", true),
    ]

    @Test("ANY, ALL, NONE and @count over a to-many key path", arguments: aggregateCases)
    func aggregates(_ testCase: EvaluationCase) throws {
        let predicate = try Predicate(format: testCase.format)
        #expect(try predicate.evaluate(with: PredicateFixtures.team) == testCase.expected)
    }

    @Test("quantifiers over an empty collection")
    func emptyCollection() throws {
        let subject = PredicateFixtures.emptyTeam
        #expect(try Predicate(format: "ALL employees.age > 100").evaluate(with: subject))
        #expect(try !Predicate(format: "ANY employees.age > 0").evaluate(with: subject))
        #expect(try Predicate(format: "NONE employees.age > 0").evaluate(with: subject))
        #expect(try Predicate(format: "employees.@count == 0").evaluate(with: subject))
    }

    @Test("a nil to-one on the way counts nothing")
    func countThroughNilToOne() throws {
        let employee = PredicateFixtures.employee("Eve", age: 40, salary: 1)
        #expect(try Predicate(format: "department.employees.@count == 0").evaluate(with: employee))
    }

    @Test("an empty pattern matches: Swift's hasPrefix semantics")
    func emptyPatterns() throws {
        for format in ["name BEGINSWITH ''", "name ENDSWITH ''", "name CONTAINS ''"] {
            #expect(try Predicate(format: format).evaluate(with: PredicateFixtures.ann), "\(format)")
        }
    }

    @Test("errors while evaluating", arguments: [
        ("employees.age > 1", StrataError.Code.typeMismatch),
        ("employees.age IN {1}", StrataError.Code.typeMismatch),
        ("name < 5", StrataError.Code.typeMismatch),
        ("age BEGINSWITH 'a'", StrataError.Code.typeMismatch),
        ("name.@count > 1", StrataError.Code.typeMismatch),
        ("wage > 1", StrataError.Code.unknownKeyPath),
        ("name.first == 'x'", StrataError.Code.unknownKeyPath),
        ("name == $who", StrataError.Code.invalidArgument),
        ("name MATCHES '(['", StrataError.Code.invalidArgument),
    ])
    func evaluationErrors(_ format: String, _ code: StrataError.Code) throws {
        let subject = DictionarySubject("Employee", [
            "name": .value(.string("Ann")),
            "age": .value(.int(3)),
            "employees": .toMany([PredicateFixtures.ann]),
        ])
        let predicate = try Predicate(format: format)
        #expect { try predicate.evaluate(with: subject) } throws: { ($0 as? StrataError)?.code == code }
    }

    @Test("an unknown key names the entity and key")
    func unknownKeyWhileEvaluating() throws {
        do {
            _ = try Predicate(format: "agee == 25").evaluate(with: PredicateFixtures.ann)
            Issue.record("expected an error")
        } catch let error as StrataError {
            #expect(error.code == .unknownKeyPath)
            #expect(error.context["entity"] == "Employee")
            #expect(error.context["keyPath"] == "agee")
        }
    }
}
