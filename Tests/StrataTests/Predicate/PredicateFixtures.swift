import Foundation
@testable import Strata

/// Subjects and a model shared by the predicate tests.
///
/// Foundation declares a `Predicate` too; these files write `Strata.Predicate` where
/// they import Foundation.
enum PredicateFixtures {
    static let hired = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01T00:00:00Z

    static func employee(_ name: String, age: Int64, salary: Double, department: DictionarySubject? = nil) -> DictionarySubject {
        DictionarySubject("Employee", [
            "name": .value(.string(name)),
            "age": .value(.int(age)),
            "salary": .value(.double(salary)),
            "department": .toOne(department),
        ])
    }

    static let department = DictionarySubject("Department", [
        "name": .value(.string("R&D")),
        "budget": .value(.decimal(1_000_000)),
        "manager": .toOne(nil),
    ])

    /// Ann: the subject of the operator table.
    static let ann = DictionarySubject("Employee", [
        "name": .value(.string("Ann Lee")),
        "age": .value(.int(30)),
        "salary": .value(.double(1500.5)),
        "bonus": .value(.decimal(200)),
        "nickname": .value(.null),
        "city": .value(.string("Zürich")),
        "code": .value(.string("A*B")),
        "active": .value(.bool(true)),
        "hired": .value(.date(hired)),
        "department": .toOne(department),
    ])

    /// A department with three employees, for ANY, ALL, NONE and @count.
    static let team = DictionarySubject("Department", [
        "name": .value(.string("R&D")),
        "employees": .toMany([
            employee("Ann", age: 30, salary: 1500.5),
            employee("Bob", age: 45, salary: 900),
            employee("Cid", age: 22, salary: 3000),
        ]),
    ])

    static let emptyTeam = DictionarySubject("Department", [
        "name": .value(.string("Empty")),
        "employees": .toMany([]),
    ])

    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Department") {
                Attribute("name", .string)
                Attribute("budget", .decimal, optional: true)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true)
                Relationship("manager", to: "Employee").withoutInverse()
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("age", .int64)
                Attribute("salary", .double)
                Attribute("active", .bool, default: .bool(true))
                Attribute("hired", .date, optional: true)
                Relationship("department", to: "Department", inverse: "employees")
            }
        }
    }

    static func entity(_ name: String) throws -> (EntityDescription, ObjectModel) {
        let model = try model()
        guard let entity = model.entity(named: name) else {
            throw StrataError(.invalidModel, "fixture model has no \(name)")
        }
        return (entity, model)
    }
}
