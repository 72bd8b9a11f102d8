import Foundation
import Strata
import StrataImport

/// A model with every attribute type and each kind of relationship, for the decoder's
/// and writer's tests.
enum ImportTestModel {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(version: "1") {
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
        } catch {
            preconditionFailure("the test model does not build: \(error)")
        }
    }()
}

/// What a decoded line says, comparable: doubles by bit pattern (NaN included).
struct LineSummary: Equatable, CustomStringConvertible {
    var entity: String
    var names: [String]
    var values: [String]
    var links: [String]

    init(_ line: ImportLine) {
        entity = line.entity.name
        names = line.names
        values = line.values.map { attribute, value in
            if case .double(let d) = value { return "\(attribute.name)=double(\(d.bitPattern))" }
            return "\(attribute.name)=\(value)"
        }
        links = line.links.map { relationship, targets in "\(relationship.name)=\(targets)" }
    }

    var description: String { "\(entity) \(names) \(values) \(links)" }
}
