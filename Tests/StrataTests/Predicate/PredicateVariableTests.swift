import Testing
@testable import Strata

@Suite("Predicate substitution variables")
struct PredicateVariableTests {
    @Test("variables are replaced by values and lists")
    func substitution() throws {
        let template = try Predicate(format: "age >= $minimum AND name IN $names AND age BETWEEN $range")
        #expect(template.variableNames == ["minimum", "names", "range"])
        let bound = try template.withSubstitutionVariables(["minimum": 18, "names": ["Ann Lee", "Bo"], "range": [20, 40], "unused": 1])
        #expect(bound == (try Predicate(format: "age >= 18 AND name IN {'Ann Lee', 'Bo'} AND age BETWEEN {20, 40}")))
        #expect(bound.variableNames.isEmpty)
        #expect(try bound.evaluate(with: PredicateFixtures.ann))
    }

    @Test("Value bindings")
    func valueBindings() throws {
        let values: [String: Value] = ["age": .int(30)]
        let bound = try Predicate(format: "age == $age").withSubstitutionVariables(values)
        #expect(bound == (try Predicate(format: "age == 30")))
    }

    @Test("variables inside lists and under NOT/OR")
    func nested() throws {
        let template = try Predicate(format: "NOT (age IN {$a, 2} OR name == $b)")
        let bound = try template.withSubstitutionVariables(["a": 1, "b": "x"])
        #expect(bound == (try Predicate(format: "NOT (age IN {1, 2} OR name == 'x')")))
    }

    @Test("an unbound variable is an error naming it")
    func unbound() throws {
        let template = try Predicate(format: "age >= $minimum AND name == $name")
        do {
            _ = try template.withSubstitutionVariables(["minimum": 18])
            Issue.record("expected an error")
        } catch let error as StrataError {
            #expect(error.code == .invalidArgument)
            #expect(error.context["variable"] == "name")
            #expect(error.message.contains("$name"))
        }
    }
}
