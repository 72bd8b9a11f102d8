import Testing
@testable import Strata

@Suite("Predicate builder")
struct PredicateBuilderTests {
    @Test("the builder gives the same tree as the parser")
    func builderEqualsParser() throws {
        let pairs: [(Predicate, String)] = [
            (.key("age") == 25, "age == 25"),
            (.key("age") != 25, "age != 25"),
            (.key("age") < 25, "age < 25"),
            (.key("age") <= 25, "age <= 25"),
            (.key("age") > 25, "age > 25"),
            (.key("age") >= 25, "age >= 25"),
            (.key("salary") > 1500.5, "salary > 1500.5"),
            (.key("name") == "Ann", "name == 'Ann'"),
            (.key("active") == true, "active == YES"),
            (.key("nickname") == nil, "nickname == nil"),
            (.key("nickname") != nil, "nickname != nil"),
            (.key("nickname").isNil, "nickname == nil"),
            (.key("name").beginsWith("jo", caseInsensitive: true), "name BEGINSWITH[c] 'jo'"),
            (.key("name").endsWith("son", diacriticInsensitive: true), "name ENDSWITH[d] 'son'"),
            (.key("name").contains("an", caseInsensitive: true, diacriticInsensitive: true), "name CONTAINS[cd] 'an'"),
            (.key("name").like("j?n*"), "name LIKE 'j?n*'"),
            (.key("name").matches("[A-Z].*"), "name MATCHES '[A-Z].*'"),
            (.key("age").in([25, 30]), "age IN {25, 30}"),
            (.key("age").between(18, 65), "age BETWEEN {18, 65}"),
            (.key("age").between(18...65), "age BETWEEN {18, 65}"),
            (.key("department.name") == "R&D", "department.name == 'R&D'"),
            (.any("employees.salary") > 1000, "ANY employees.salary > 1000"),
            (.all("employees.age") >= 18, "ALL employees.age >= 18"),
            (.none("employees.age") > 65, "NONE employees.age > 65"),
            (.count("employees") > 3, "employees.@count > 3"),
            (.key("employees").count > 3, "employees.@count > 3"),
            (.key("age") >= .variable("minimum"), "age >= $minimum"),
            (.key("age") < .keyPath("retirementAge"), "age < retirementAge"),
            (.key("name").compare(.equalTo, "zoe", options: [.caseInsensitive, .diacriticInsensitive]), "name ==[cd] 'zoe'"),
            (.key("age") == 25 && .key("name").beginsWith("jo", caseInsensitive: true), "age == 25 AND name BEGINSWITH[c] 'jo'"),
            (.key("a") == 1 && .key("b") == 2 && .key("c") == 3, "a == 1 AND b == 2 AND c == 3"),
            (.key("a") == 1 || .key("b") == 2 || .key("c") == 3, "a == 1 OR b == 2 OR c == 3"),
            (.key("a") == 1 || .key("b") == 2 && .key("c") == 3, "a == 1 OR b == 2 AND c == 3"),
            (!(.key("age") < 18), "NOT age < 18"),
            (.truePredicate && !.falsePredicate, "TRUEPREDICATE AND NOT FALSEPREDICATE"),
        ]
        for (built, format) in pairs {
            #expect(built == (try Predicate(format: format)), "\(format)")
        }
    }

    @Test("a built predicate evaluates")
    func builtPredicateEvaluates() throws {
        let predicate: Predicate = .key("age") >= 18 && .key("department.name").beginsWith("r", caseInsensitive: true)
        #expect(try predicate.evaluate(with: PredicateFixtures.ann))
        let rich: Predicate = .any("employees.salary") > 2000 && .count("employees") == 3
        #expect(try rich.evaluate(with: PredicateFixtures.team))
    }
}
