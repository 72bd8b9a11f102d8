import Foundation
import Testing
import Strata

/// What a store built from a data file must hold, exactly: as many objects of each
/// entity as the file has lines, every stored attribute equal to the line's value (or
/// the attribute's default when the line leaves it out), and every relationship
/// leading to the objects the lines link — from either side, since the file sets the
/// to-one side and the store derives the to-many one.
struct FixtureContents {
    let lines: [FixtureLine]
    /// Per entity, the attribute whose value tells its objects apart in the data.
    let keys: [String: String]

    /// An object told apart by its entity and its key attribute's value.
    struct Identity: Hashable, CustomStringConvertible {
        let entity: String
        let key: Value
        var description: String { "\(entity) \(key)" }
    }

    func expectMatches(_ context: ObjectContext, model: ObjectModel) throws {
        let byRef = Dictionary(lines.compactMap { line in line.ref.map { ($0, line) } }, uniquingKeysWith: { first, _ in first })
        for entity in model.entities where !entity.isAbstract {
            let expected = lines.filter { $0.entity == entity.name }
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            let objects = try context.fetch(request)
            #expect(objects.count == expected.count, "\(entity.name): \(objects.count) objects, the data file has \(expected.count) lines")
            if objects.isEmpty && expected.isEmpty { continue }
            let keyAttribute = try #require(keys[entity.name].flatMap { entity.attributesByName[$0] }, "no key attribute for \(entity.name)")
            var found: [Value: ManagedObject] = [:]
            for object in objects { found[try object.value(forKey: keyAttribute.name)] = object }
            #expect(found.count == objects.count, "\(entity.name).\(keyAttribute.name) does not tell the objects apart")
            for line in expected {
                let key = try line.value(of: keyAttribute)
                let object = try #require(found[key], "line \(line.number): no \(entity.name) with \(keyAttribute.name) \(key)")
                for attribute in entity.storedAttributes {
                    let actual = try object.value(forKey: attribute.name)
                    let wanted = try line.value(of: attribute)
                    #expect(actual == wanted, "line \(line.number): \(entity.name).\(attribute.name) is \(Self.short(actual)), expected \(Self.short(wanted))")
                }
                for relationship in entity.relationships {
                    let actual = try Set(linked(object, relationship).map { try identity(of: $0, model: model) })
                    let wanted = try expectedTargets(of: line, relationship, byRef: byRef, model: model)
                    #expect(actual == wanted, "line \(line.number): \(entity.name).\(relationship.name) leads to \(actual), expected \(wanted)")
                }
            }
        }
    }

    private func linked(_ object: ManagedObject, _ relationship: RelationshipDescription) throws -> [ManagedObject] {
        relationship.isToMany ? try object.objects(relationship.name) : try object.object(relationship.name).map { [$0] } ?? []
    }

    private func identity(of object: ManagedObject, model: ObjectModel) throws -> Identity {
        let entity = object.objectID.entityName
        let key = try #require(keys[entity], "no key attribute for \(entity)")
        return Identity(entity: entity, key: try object.value(forKey: key))
    }

    private func identity(of line: FixtureLine, model: ObjectModel) throws -> Identity {
        let attribute = try #require(keys[line.entity].flatMap { model.entity(named: line.entity)?.attributesByName[$0] },
                                     "no key attribute for \(line.entity)")
        return Identity(entity: line.entity, key: try line.value(of: attribute))
    }

    /// The lines this line links through `relationship`, and the lines that link it
    /// through the inverse.
    private func expectedTargets(of line: FixtureLine, _ relationship: RelationshipDescription, byRef: [String: FixtureLine], model: ObjectModel) throws -> Set<Identity> {
        var targets: [FixtureLine] = []
        for name in line.targets(relationship.name) {
            targets.append(try #require(byRef[name], "line \(line.number): \(relationship.name) links '\(name)', which no line defines"))
        }
        if let inverse = relationship.inverseName, let ref = line.ref {
            targets += lines.filter { other in
                model.entity(named: other.entity)?.isKind(of: relationship.destinationEntityName) == true && other.targets(inverse).contains(ref)
            }
        }
        return Set(try targets.map { try identity(of: $0, model: model) })
    }

    /// Values in messages without kilobytes of photo.
    static func short(_ value: Value) -> String {
        if case .binary(let data) = value { return "\(data.count) bytes" }
        return "\(value)"
    }
}
