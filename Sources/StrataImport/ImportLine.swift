import Foundation
import Strata

/// One line of an import, checked against the model: its entity, the names others
/// refer to it by, its attribute values and its relationship targets.
package struct ImportLine: Sendable {
    /// A relationship target as the line names it.
    package enum Target: CustomStringConvertible, Sendable, Equatable {
        /// A local name of this import (an `@ref`, or the `@id` of an exported object).
        case ref(String)
        /// An object URI: a name of this import if some line carries it as `@id`,
        /// else an object already in the store.
        case id(String)

        package var name: String {
            switch self {
            case .ref(let name), .id(let name): name
            }
        }

        package var description: String {
            switch self {
            case .ref(let name): "{\"@ref\": \"\(name)\"}"
            case .id(let uri): "{\"@id\": \"\(uri)\"}"
            }
        }
    }

    package var entity: EntityDescription
    /// The names this line's object answers to: its `@ref` and its `@id`.
    package var names: [String]
    package var values: [(AttributeDescription, Value)]
    /// Relationships as given; a to-one has zero (null) or one target.
    package var links: [(RelationshipDescription, [Target])]

    /// A line as decoded.
    package init(entity: EntityDescription, names: [String], values: [(AttributeDescription, Value)], links: [(RelationshipDescription, [Target])]) {
        self.entity = entity
        self.names = names
        self.values = values
        self.links = links
    }

    /// Checks and converts one parsed line.
    ///
    /// - Throws: A `LineProblem` for a line that is not an object, an unknown or
    ///   abstract entity, an unknown key, a value of the wrong type, a malformed target.
    package init(_ json: JSONValue, model: ObjectModel, values converter: JSONLines) throws(LineProblem) {
        guard case .object(let fields) = json else {
            throw LineProblem("expected a JSON object, got \(json.kindDescription)")
        }
        guard let entityField = fields[JSONLines.entityKey] else {
            throw LineProblem("the object has no \"@entity\"")
        }
        guard case .string(let entityName) = entityField else {
            throw LineProblem("\"@entity\" must be a string, got \(entityField.kindDescription)")
        }
        guard let entity = model.entity(named: entityName) else {
            let known = model.entities.filter { !$0.isAbstract }.map(\.name).joined(separator: ", ")
            throw LineProblem("unknown entity '\(entityName)' (the store's model has \(known))")
        }
        guard !entity.isAbstract else {
            throw LineProblem("entity '\(entityName)' is abstract; use one of its sub-entities (\(entity.allSubentityNames.joined(separator: ", ")))")
        }
        self.entity = entity
        names = []
        values = []
        links = []
        for key in fields.keys.sorted() {
            guard let field = fields[key] else { continue }
            switch key {
            case JSONLines.entityKey:
                continue
            case JSONLines.refKey, JSONLines.idKey:
                guard case .string(let name) = field, !name.isEmpty else {
                    throw LineProblem("\"\(key)\" must be a non-empty string, got \(field.kindDescription)")
                }
                names.append(name)
            default:
                if key.hasPrefix("@") {
                    throw LineProblem("unknown key '\(key)' (keys starting with @ are \"@entity\", \"@ref\" and \"@id\")")
                }
                if let attribute = entity.attributesByName[key] {
                    values.append((attribute, try converter.value(field, for: attribute, of: entity.name)))
                } else if let relationship = entity.relationshipsByName[key] {
                    links.append((relationship, try Self.targets(field, relationship, entity: entity.name)))
                } else {
                    throw LineProblem("\(entity.name) has no attribute or relationship '\(key)'")
                }
            }
        }
    }

    private static func targets(_ json: JSONValue, _ relationship: RelationshipDescription, entity: String) throws(LineProblem) -> [Target] {
        let label = "\(entity).\(relationship.name)"
        if case .null = json { return [] }
        if relationship.isToMany {
            guard case .array(let items) = json else {
                throw LineProblem("\(label) is to-many: give a list of {\"@ref\": …} or {\"@id\": …}, got \(json.kindDescription)")
            }
            var targets: [Target] = []
            for item in items { targets.append(try target(item, label: label)) }
            return targets
        }
        return [try target(json, label: label)]
    }

    private static func target(_ json: JSONValue, label: String) throws(LineProblem) -> Target {
        guard case .object(let fields) = json, fields.count == 1, let (key, value) = fields.first,
              case .string(let name) = value, !name.isEmpty else {
            throw LineProblem("\(label) expects {\"@ref\": \"name\"} or {\"@id\": \"strata://…\"}, got \(json.kindDescription)")
        }
        switch key {
        case JSONLines.refKey: return .ref(name)
        case JSONLines.idKey: return .id(name)
        default: throw LineProblem("\(label) expects {\"@ref\": \"name\"} or {\"@id\": \"strata://…\"}, got a key '\(key)'")
        }
    }
}
