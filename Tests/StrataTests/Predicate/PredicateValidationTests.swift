import Testing
@testable import Strata

@Suite("Predicate validation against the model")
struct PredicateValidationTests {
    private func error(_ format: String, on entityName: String = "Employee") throws -> StrataError? {
        let (entity, model) = try PredicateFixtures.entity(entityName)
        do {
            try Predicate(format: format).validate(against: entity, in: model)
            return nil
        } catch let error as StrataError {
            return error
        }
    }

    @Test("a misspelt key names the entity and the key path")
    func misspeltKey() throws {
        let error = try #require(try error("agee == 25"))
        #expect(error.code == .unknownKeyPath)
        #expect(error.message == "Employee has no property 'agee' (in key path 'agee')")
        #expect(error.context["entity"] == "Employee")
        #expect(error.context["keyPath"] == "agee")
    }

    @Test("a misspelt key after a relationship names the destination entity")
    func misspeltKeyThroughRelationship() throws {
        let error = try #require(try error("department.nme == 'R&D'"))
        #expect(error.code == .unknownKeyPath)
        #expect(error.message == "Department has no property 'nme' (in key path 'department.nme')")
        #expect(error.context["entity"] == "Department")
        #expect(error.context["keyPath"] == "department.nme")
    }

    @Test("invalid predicates", arguments: [
        ("age.years == 1", "Employee", StrataError.Code.unknownKeyPath),
        ("ANY employees.agee > 1", "Department", StrataError.Code.unknownKeyPath),
        ("department.budget.x == 1", "Employee", StrataError.Code.unknownKeyPath),
        ("name == 25", "Employee", StrataError.Code.typeMismatch),
        ("25 == name", "Employee", StrataError.Code.typeMismatch),
        ("age == 'twenty'", "Employee", StrataError.Code.typeMismatch),
        ("age BEGINSWITH 'a'", "Employee", StrataError.Code.typeMismatch),
        ("name LIKE 5", "Employee", StrataError.Code.typeMismatch),
        ("name IN {'a', 2}", "Employee", StrataError.Code.typeMismatch),
        ("age BETWEEN {'a', 'b'}", "Employee", StrataError.Code.typeMismatch),
        ("hired > 5", "Employee", StrataError.Code.typeMismatch),
        ("age == name", "Employee", StrataError.Code.typeMismatch),
        ("department == 'R&D'", "Employee", StrataError.Code.typeMismatch),
        ("employees.name == 'Ann'", "Department", StrataError.Code.typeMismatch),
        ("employees == nil", "Department", StrataError.Code.typeMismatch),
        ("ANY name == 'Ann'", "Employee", StrataError.Code.typeMismatch),
        ("name.@count > 1", "Employee", StrataError.Code.typeMismatch),
        ("department.@count > 1", "Employee", StrataError.Code.typeMismatch),
        ("age == employees.age", "Department", StrataError.Code.unknownKeyPath),
        ("name == employees.name", "Department", StrataError.Code.typeMismatch),
        ("name MATCHES '(['", "Employee", StrataError.Code.invalidArgument),
        ("age == 1 OR (NOT agee == 2)", "Employee", StrataError.Code.unknownKeyPath),
    ])
    func invalid(_ format: String, _ entityName: String, _ code: StrataError.Code) throws {
        let error = try #require(try error(format, on: entityName), "\(format) should not validate")
        #expect(error.code == code, "\(error)")
        #expect(error.context["entity"] != nil, "\(error)")
    }

    @Test("a type mismatch names the entity and the key path")
    func typeMismatchContext() throws {
        let error = try #require(try error("name == 25"))
        #expect(error.code == .typeMismatch)
        #expect(error.context["entity"] == "Employee")
        #expect(error.context["keyPath"] == "name")
        #expect(error.message.contains("Employee.name (string)"))
    }

    @Test("valid predicates", arguments: [
        ("age == 25 AND name BEGINSWITH[c] 'jo'", "Employee"),
        ("salary > 1000 AND age < 65.5 AND active == YES AND active == 1", "Employee"),
        ("department.name == 'R&D' AND department.budget > 1000", "Employee"),
        ("department == nil OR department.manager != nil", "Employee"),
        ("nil == name", "Employee"),
        ("age IN {1, 2} AND name IN {} AND age BETWEEN {18, 65}", "Employee"),
        ("hired < CAST('2026-01-01T00:00:00Z', 'NSDate')", "Employee"),
        ("age == $age AND name IN $names", "Employee"),
        ("ANY employees.salary > 1000 AND ALL employees.age >= 18 AND NONE employees.name == 'x'", "Department"),
        ("employees.@count > 3 AND manager.department.employees.@count >= 1", "Department"),
        ("'Bob' IN employees.name", "Department"),
        ("ANY employees.department.name == 'R&D'", "Department"),
        ("TRUEPREDICATE", "Department"),
    ])
    func valid(_ format: String, _ entityName: String) throws {
        #expect(try error(format, on: entityName) == nil)
    }

    @Test("an unknown entity name")
    func unknownEntity() throws {
        let model = try PredicateFixtures.model()
        #expect { try Predicate(format: "age == 1").validate(againstEntityNamed: "Nope", in: model) } throws: {
            ($0 as? StrataError)?.context["entity"] == "Nope"
        }
        try Predicate(format: "age == 1").validate(againstEntityNamed: "Employee", in: model)
    }
}
