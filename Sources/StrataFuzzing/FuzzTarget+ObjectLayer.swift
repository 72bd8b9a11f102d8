import Foundation
import Strata

/// The object layer's text inputs: model files and predicate format strings.
extension FuzzTarget {
    /// A model file loads or is refused; one that loads writes back to a file that
    /// loads to the same model (same version hash).
    static func model(_ bytes: [UInt8]) throws {
        let model = try ObjectModel(jsonData: Data(bytes))
        let again = try ObjectModel(jsonData: try model.jsonData())
        guard again == model, again.versionHash == model.versionHash else {
            throw FuzzFinding("model: a loaded model file does not write back to the same model")
        }
    }

    /// A predicate parses or is refused; one that parses is validated against a small
    /// model and evaluated against two objects (errors allowed, traps not), and its
    /// description parses again.
    static func predicate(_ bytes: [UInt8]) throws {
        let format = String(decoding: bytes, as: UTF8.self)
        let arguments: [any PredicateArgument] = ["R&D", 42, 2.5, Value.bool(true), "x*"]
        let predicate = try Predicate(format: format, argumentArray: arguments)
        if let model = PredicateFixture.model { _ = try? predicate.validate(againstEntityNamed: "Employee", in: model) }
        _ = try? predicate.evaluate(with: PredicateFixture.employee)
        _ = try? predicate.evaluate(with: PredicateFixture.department)
        _ = try? Predicate(format: predicate.description)
    }
}

/// The small model and objects the predicate target evaluates against.
enum PredicateFixture {
    /// Nil only if the fixed model stopped being valid, which the replay test catches.
    static let model: ObjectModel? = {
        try? ObjectModel(version: "fuzz") {
            Entity("Department") {
                Attribute("name", .string)
                Attribute("budget", .decimal, optional: true)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("age", .int16)
                Attribute("salary", .double)
                Attribute("active", .bool)
                Attribute("hired", .date, optional: true)
                Attribute("id", .uuid, optional: true)
                Attribute("photo", .binary, optional: true)
                Attribute("site", .url, optional: true)
                Relationship("department", to: "Department", inverse: "employees")
                Relationship("reports", to: "Employee", inverse: "manager", toMany: true)
                Relationship("manager", to: "Employee", inverse: "reports")
            }
        }
    }()

    // The objects are made for each input, not kept in `static let`s: LeakSanitizer
    // reported the strings of a once-initialised global as 1,040 bytes leaked at the
    // exit of a 30-minute run (862,250 inputs and no input leaking: most likely the
    // flag bits Swift keeps in string and enum payload pointers, which LSan does not
    // follow from a global), failing `make fuzz`.
    static var department: DictionarySubject {
        DictionarySubject("Department", [
            "name": .value(.string("R&D")),
            "budget": .value(.decimal(Decimal(string: "1000.50") ?? 0)),
        ])
    }

    static var employee: DictionarySubject {
        let report = DictionarySubject("Employee", [
            "name": .value(.string("Ann")), "age": .value(.int(31)), "salary": .value(.double(-0.0)),
            "active": .value(.bool(false)), "hired": .value(.null), "id": .value(.null),
            "photo": .value(.null), "site": .value(.null), "department": .toOne(department),
            "reports": .toMany([]), "manager": .toOne(nil),
        ])
        return DictionarySubject("Employee", [
            "name": .value(.string("Zoë Ünal")), "age": .value(.int(42)), "salary": .value(.double(.infinity)),
            "active": .value(.bool(true)), "hired": .value(.date(Date(timeIntervalSinceReferenceDate: 1e9))),
            "id": .value(.uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))),
            "photo": .value(.binary(Data([0, 1, 2]))), "site": .value(URL(string: "https://example.com/a").map { .url($0) } ?? .null),
            "department": .toOne(department), "reports": .toMany([report, report]), "manager": .toOne(report),
        ])
    }
}
