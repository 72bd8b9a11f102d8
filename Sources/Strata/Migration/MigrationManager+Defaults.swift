import Foundation
import StrataLog

extension MigrationManager {
    /// What `EntityMigrationPolicy.createDestinationInstances` does by default: one
    /// destination object whose attributes come from the mapping's expressions (a
    /// source key path carries the stored value as it is — an external binary by
    /// reference, no bytes read), unmapped attributes take their defaults, and to-one
    /// and list relationships are mapped through the id maps. An object of an entity
    /// that keeps its tag keeps its key, so references to it stay valid unchanged.
    @discardableResult
    package func createDefaultDestinationInstance(for source: ManagedObject, mapping: EntityMapping) throws -> ManagedObject? {
        guard let destinationName = mapping.destinationEntityName,
              let shape = destinationStore.schema.shapes[destinationName] else { return nil }
        let destinationEntity = shape.entity
        let keepsKey = try shape.layout.tag == StoreSchema.tag(of: source.recordKey) && !keyTaken(source.recordKey)
        let key = keepsKey ? source.recordKey : try destinationStore.allocateKey(tag: shape.layout.tag)
        let destination = try destinationContext.insertForMigration(shape, key: key)
        for attribute in destinationEntity.storedAttributes {
            do {
                destination.changes[attribute.name] = try attributeValue(attribute, of: source, mapping: mapping)
            } catch var error as StrataError {
                // A conversion that does not apply to this object's value: say which.
                error.context["entity"] = error.context["entity"] ?? destinationName
                error.context["property"] = error.context["property"] ?? attribute.name
                error.context["object"] = error.context["object"] ?? source.objectID.description
                error.context["entityMapping"] = mapping.name
                throw error
            }
        }
        for relationship in destinationEntity.relationships {
            guard let field = try relationshipValue(relationship, of: source, mapping: mapping) else { continue }
            if case .references(let keys) = field {
                try destinationContext.addEdgesForMigration(destination, relationship: relationship, keys)
                continue
            }
            destination.changes[relationship.name] = field
        }
        if !keepsKey || mapping.needsRelationshipPass {
            try associate(sourceInstance: source, withDestinationInstance: destination, for: mapping)
        }
        return destination
    }

    /// What `EntityMigrationPolicy.createRelationships` does by default: sets the
    /// relationships mapped by ``MappingExpression/destinationInstances(of:entityMapping:)``
    /// (the default creation already mapped every other relationship it could), through
    /// the relationship's setter so that the inverse follows.
    package func createDefaultRelationships(for destination: ManagedObject, mapping: EntityMapping) throws {
        for propertyMapping in mapping.relationshipMappings {
            guard case .destinationInstances(let path, let otherName) = propertyMapping.valueExpression else { continue }
            let other = try entityMapping(otherName)
            guard let relationship = destination.entity.relationshipsByName[propertyMapping.name] else {
                throw StrataError(.migrationFailed, "mapping \(mapping.name): \(destination.entity.name) has no relationship '\(propertyMapping.name)'",
                                  context: ["entityMapping": mapping.name, "entity": destination.entity.name, "property": propertyMapping.name])
            }
            var targets: [ManagedObject] = []
            var seen = Set<RecordKey>()
            for sourceKey in try sourceKeys(of: destination.recordKey, under: mapping) {
                let source = try sourceContext.object(forKey: sourceKey)
                guard source.entity.relationshipsByName[path] != nil else {
                    throw StrataError(.migrationFailed, "mapping \(mapping.name): \(source.entity.name) has no relationship '\(path)' for \(propertyMapping.name)",
                                      context: ["entityMapping": mapping.name, "entity": source.entity.name, "property": path, "object": source.objectID.description])
                }
                for related in try source.objects(path) {
                    for key in try destinationKeys(of: related.recordKey, under: other, source: related) where seen.insert(key).inserted {
                        targets.append(try destinationContext.object(forKey: key))
                    }
                }
            }
            // Added, not replaced: the creation pass left the relationship empty, and the
            // sources of a merged destination may come in more than one batch.
            if relationship.isToMany {
                for target in targets { try destination.add(target, to: relationship.name) }
            } else if let first = targets.first {
                try destination.setObject(first, forKey: relationship.name)
            }
        }
    }

    private func keyTaken(_ key: RecordKey) throws -> Bool {
        if destinationContext.held(key) != nil { return true }
        if let (asked, live) = batchLiveKeys, asked.contains(key) { return live.contains(key) }
        return try destinationStore.records.contains(key)
    }

    private func attributeValue(_ attribute: AttributeDescription, of source: ManagedObject, mapping: EntityMapping) throws -> FieldValue {
        guard let propertyMapping = mapping.attributeMapping(named: attribute.name) else {
            return attribute.defaultValue.map { $0.isNull ? .null : .value($0) } ?? .null
        }
        var value: Value
        switch propertyMapping.valueExpression {
        case .keyPath(let path) where !path.utf8.contains(UInt8(ascii: ".")):
            guard source.entity.attributesByName[path] != nil else {
                throw StrataError(.migrationFailed, "mapping \(mapping.name): \(source.entity.name) has no attribute '\(path)' for \(attribute.name)", context: ["mapping": mapping.name, "keyPath": path])
            }
            let field = try source.field(path)
            if case .blob = field, propertyMapping.transforms.isEmpty { return field }
            value = try source.value(forKey: path)
        case .keyPath(let path):
            value = try Self.resolve(path, on: source)
        case .constant(let constant):
            value = constant
        case .closure(let closure):
            value = try closure(source)
        case .defaultValue:
            value = attribute.defaultValue ?? .null
        case .destinationInstances:
            throw StrataError(.migrationFailed, "mapping \(mapping.name): \(propertyMapping.valueExpression) maps objects, so it applies to relationships, not to the attribute \(attribute.name)",
                              context: ["entityMapping": mapping.name, "property": attribute.name])
        }
        if value.isNull, let replacement = propertyMapping.nilReplacement {
            value = replacement
        } else {
            value = try propertyMapping.finalValue(from: value)
        }
        return value.isNull ? .null : .value(value)
    }

    private func relationshipValue(_ relationship: RelationshipDescription, of source: ManagedObject, mapping: EntityMapping) throws -> FieldValue? {
        _ = try destinationStore.schema.layout(relationship.destinationEntityName)
        let isStored = !relationship.isToMany || StoreSchema.isStoredList(relationship, model: destinationModel)
        guard isStored, let propertyMapping = mapping.relationshipMapping(named: relationship.name),
              case .keyPath(let path) = propertyMapping.valueExpression,
              let sourceRelationship = source.entity.relationshipsByName[path] else { return nil }
        var sourceKeys: [RecordKey]
        // A to-many is read through the source context: derived from its to-one
        // inverse, or its edges (or a list from before edges), in its order. Only the
        // members' keys are read, never their records.
        if sourceRelationship.isToMany {
            sourceKeys = try sourceContext.destinations(of: source, relationship: sourceRelationship)
        } else {
            switch try source.field(path) {
            case .reference(let key): sourceKeys = [key]
            case .references(let keys): sourceKeys = keys
            default: sourceKeys = []
            }
        }
        let mapped = try sourceKeys.compactMap { try mapKey($0, into: relationship.destinationEntityName) }
        if relationship.isToMany { return .references(mapped) }
        return mapped.first.map(FieldValue.reference) ?? .null
    }

    /// The destination key of a source object referenced by a relationship: itself
    /// when its entity keeps its tag, else through the id map of its entity's mapping,
    /// nil when its entity was removed.
    func mapKey(_ key: RecordKey, into destinationEntity: String) throws -> RecordKey? {
        guard let sourceEntity = sourceStore.schema.entityName(of: key) else { return nil }
        for candidate in mappingModel.entityMappings(forSourceEntity: sourceEntity) {
            guard let destinationName = candidate.destinationEntityName,
                  let destination = destinationModel.entity(named: destinationName),
                  destination.isKind(of: destinationEntity) else { continue }
            let tag = try destinationStore.schema.layout(destinationName).tag
            if tag == StoreSchema.tag(of: key) && candidate.kind != .remove { return key }
            if let mapped = try idMaps[candidate.name]?.destinations(of: key).first { return mapped }
        }
        return nil
    }

    /// Follows a dotted key path through to-one relationships to a value.
    static func resolve(_ path: String, on object: ManagedObject) throws -> Value {
        var current: ManagedObject? = object
        let parts = path.split(separator: ".").map(String.init)
        for part in parts.dropLast() { current = try current?.object(part) }
        guard let last = parts.last, let current else { return .null }
        return try current.value(forKey: last)
    }
}
