import Foundation
import Strata
import StrataImport

/// The JSON Lines import line (`strata import`): `JSONLineDecoder` against a model
/// with every attribute type and each kind of relationship.
extension FuzzTarget {
    /// A line decodes or is refused with a `LineProblem`; when the fast path answers,
    /// the reference path (Foundation's JSONDecoder and `ImportLine`) gives the same
    /// entity, names, values and links — and accepts the line at all.
    static func importLine(_ bytes: [UInt8]) throws {
        guard let model = ImportLineFixture.model else { throw FuzzFinding("import-line: the fixture model does not build") }
        let decoder = JSONLineDecoder(model: model)
        let line = bytes[...]
        let fast = decoder.decodeFast(line)
        let reference: ImportLine
        do {
            reference = try decoder.decodeReference(line)
        } catch {
            if let fast {
                throw FuzzFinding("import-line: the fast path accepted a line the reference refuses (\(error)): \(fast.entity.name)")
            }
            return
        }
        if let fast, ImportLineFixture.summary(fast) != ImportLineFixture.summary(reference) {
            throw FuzzFinding("import-line: fast \(ImportLineFixture.summary(fast)) ≠ reference \(ImportLineFixture.summary(reference))")
        }
    }
}

/// The model the import-line target decodes against, and a comparable form of a line.
enum ImportLineFixture {
    /// Nil only if the fixed model stopped being valid, which the replay test catches.
    static let model: ObjectModel? = {
        try? ObjectModel(version: "fuzz") {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                Attribute("ratio", .float, optional: true)
                Attribute("age", .int16, optional: true)
                Attribute("rank", .int32, optional: true)
                Attribute("serial", .int64, optional: true)
                Attribute("active", .bool, optional: true)
                Attribute("bonus", .decimal, optional: true)
                Attribute("hired", .date, optional: true)
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Attribute("badge", .uuid, optional: true)
                Attribute("homepage", .url, optional: true)
                Attribute("address", .composite, optional: true)
                Attribute("settings", .transformable, optional: true).valueTransformer(JSONValueTransformer.name)
                Attribute("blob", .transformable, optional: true).valueTransformer("Opaque")
                Relationship("department", to: "Department", inverse: "employees")
                Relationship("mentor", to: "Employee").withoutInverse()
                Relationship("projects", to: "Project", inverse: "members", toMany: true)
            }
            Entity("Project") {
                Attribute("title", .string, optional: true)
                Relationship("members", to: "Employee", inverse: "projects", toMany: true)
            }
            Entity("Thing", abstract: true) {
                Attribute("label", .string, optional: true)
            }
        }
    }()

    /// Entity, names, values (doubles by bit pattern, so NaN equals NaN) and links.
    static func summary(_ line: ImportLine) -> String {
        let values = line.values.map { attribute, value -> String in
            if case .double(let d) = value { return "\(attribute.name)=double(\(d.bitPattern))" }
            return "\(attribute.name)=\(value)"
        }
        let links = line.links.map { relationship, targets in "\(relationship.name)=\(targets)" }
        return "\(line.entity.name) \(line.names) \(values) \(links)"
    }

    /// Seeds: lines the fast path reads and lines it leaves to the reference.
    static let seeds = [
        #"{"@entity": "Employee", "name": "Ada", "salary": 90000}"#,
        #"{"@entity":"Employee","@id":"strata://x/Employee/1","name":"Ada","salary":90000.5}"#,
        #"  {"name": "Grace", "@entity": "Employee", "salary": -1.5e3, "@ref": "grace"}  "#,
        #"{"@entity": "Employee", "name": "Ünïcödé 😀", "age": 42, "rank": -7, "serial": 9223372036854775807, "active": true}"#,
        #"{"@entity": "Employee", "name": "esc \" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \u0000", "bonus": "12.50"}"#,
        #"{"@entity": "Employee", "name": "d", "hired": "2024-05-01T12:00:00.25Z", "badge": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "homepage": "https://example.com/a"}"#,
        #"{"@entity": "Employee", "name": "b", "photo": {"@base64": "AAEC"}, "blob": {"@base64": "AQID"}, "ratio": 0.25}"#,
        #"{"@entity": "Employee", "name": "r", "department": {"@ref": "sales"}, "mentor": {"@id": "strata://x/Employee/3"}, "projects": [{"@ref": "p1"}, {"@id": "strata://x/Project/2"}]}"#,
        #"{"@entity": "Employee", "name": "n", "department": null, "projects": [], "hired": 1714564800, "salary": 0.0}"#,
        #"{"@entity": "Department", "name": "Sales", "@ref": "sales", "employees": [{"@ref": "ada"}]}"#,
        #"{"@entity": "Employee", "name": "x", "salary": "NaN", "ratio": "-Infinity", "bonus": 7}"#,
        #"{"@entity": "Employee", "name": "x", "address": {"street": "Main", "number": 5}, "settings": [1, 2.5, {"a": null}]}"#,
        #"{"@entity": "Employee", "name": "x", "age": 5.0, "serial": 92233720368547758070, "salary": 1e400}"#,
        #"{"@entity": "Employee", "name": "x", "name": "y"}"#,
        #"{"@entity": "Thing"}"#,
        #"["not", "an", "object"]"#,
        #"{"@entity": "Employee", "name": "\ud800", "department": "Sales", "photo": "AAEC", "@other": 1}"#,
    ]
}
