import Foundation
import StrataLog

/// Builds a ``MigrationPreview``: reads the changes off a mapping model, then counts
/// what each removal discards by streaming the records of the entities concerned, a
/// batch of keys at a time (memory follows the batch, not the store).
struct MigrationPreviewer {
    let mapping: MappingModel
    let source: ObjectModel
    let destination: ObjectModel
    let records: any RecordStore
    let schema: StoreSchema
    var batchSize = 512

    func preview() throws -> MigrationPreview {
        var changes: [MigrationChange] = []
        for entityMapping in mapping.entityMappings {
            changes += try self.changes(of: entityMapping)
        }
        return MigrationPreview(
            sourceVersion: source.versionIdentifier, sourceHash: source.versionHash,
            destinationVersion: destination.versionIdentifier, destinationHash: destination.versionHash,
            changes: changes)
    }

    private func changes(of entityMapping: EntityMapping) throws -> [MigrationChange] {
        switch (entityMapping.sourceEntityName, entityMapping.destinationEntityName) {
        case (nil, let added?):
            return [MigrationChange(kind: .entityAdded, entity: added)]
        case (let removed?, nil):
            let (objects, bytes) = try countObjects(of: removed)
            return [MigrationChange(kind: .entityRemoved, entity: removed, discardedValues: objects, discardedBytes: bytes)]
        case (let sourceName?, let destinationName?):
            guard let sourceEntity = source.entity(named: sourceName),
                  let destinationEntity = destination.entity(named: destinationName) else { return [] }
            return try changes(of: entityMapping, from: sourceEntity, to: destinationEntity)
        case (nil, nil):
            return []
        }
    }

    private func changes(of entityMapping: EntityMapping, from sourceEntity: EntityDescription,
                         to destinationEntity: EntityDescription) throws -> [MigrationChange] {
        var changes: [MigrationChange] = []
        let entity = destinationEntity.name
        if sourceEntity.name != entity {
            changes.append(MigrationChange(kind: .entityRenamed, entity: entity, detail: sourceEntity.name))
        }
        var read = Set<String>()
        // A closure or a policy may read any property: nothing is known to be dropped.
        var readsAnything = entityMapping.hasCustomPolicy
        for attribute in destinationEntity.storedAttributes {
            guard let propertyMapping = entityMapping.attributeMapping(named: attribute.name) else {
                changes.append(MigrationChange(kind: .attributeAdded, entity: entity, property: attribute.name))
                continue
            }
            switch propertyMapping.valueExpression {
            case .keyPath(let path):
                let first = String(path.split(separator: ".").first ?? "")
                read.insert(first)
                if sourceEntity.attributesByName[path] == nil && !path.contains(".") {
                    changes.append(MigrationChange(kind: .attributeAdded, entity: entity, property: attribute.name))
                } else if path != attribute.name {
                    changes.append(MigrationChange(kind: .attributeRenamed, entity: entity, property: attribute.name,
                                                   detail: "\(sourceEntity.name).\(path)"))
                }
                for case .convert(let from, let to) in propertyMapping.transforms where from != to {
                    changes.append(MigrationChange(kind: .attributeTypeChanged, entity: entity, property: attribute.name,
                                                   detail: "\(from.migrationDisplayName) → \(to.migrationDisplayName)"))
                }
            case .closure:
                readsAnything = true
            case .destinationInstances:
                // Maps objects, not a value: the migration refuses it for an attribute.
                break
            case .constant, .defaultValue:
                if sourceEntity.attributesByName[attribute.name] == nil {
                    changes.append(MigrationChange(kind: .attributeAdded, entity: entity, property: attribute.name))
                }
            }
        }
        for relationship in destinationEntity.relationships {
            let propertyMapping = entityMapping.relationshipMapping(named: relationship.name)
            if case .destinationInstances(let path, _) = propertyMapping?.valueExpression {
                // What the related objects became: the source relationship is read.
                read.insert(path)
                continue
            }
            guard let propertyMapping, case .keyPath(let path) = propertyMapping.valueExpression else {
                changes.append(MigrationChange(kind: .relationshipAdded, entity: entity, property: relationship.name))
                continue
            }
            read.insert(path)
            if path != relationship.name {
                changes.append(MigrationChange(kind: .relationshipRenamed, entity: entity, property: relationship.name,
                                               detail: "\(sourceEntity.name).\(path)"))
            }
        }
        guard !readsAnything else { return changes }
        let droppedAttributes = sourceEntity.storedAttributes.filter { !read.contains($0.name) }
        let droppedRelationships = sourceEntity.relationships.filter { !read.contains($0.name) }
        guard !droppedAttributes.isEmpty || !droppedRelationships.isEmpty else { return changes }
        let counts = try countFields(of: sourceEntity.name, named: droppedAttributes.map(\.name) + droppedRelationships.map(\.name))
        for attribute in droppedAttributes {
            let (values, bytes) = counts[attribute.name] ?? (0, 0)
            changes.append(MigrationChange(kind: .attributeRemoved, entity: sourceEntity.name, property: attribute.name,
                                           discardedValues: values, discardedBytes: bytes))
        }
        for relationship in droppedRelationships {
            // A to-many derived from its inverse holds nothing of its own: what it
            // lists lives in the inverse to-one, counted there if that one goes too.
            let (links, bytes) = counts[relationship.name] ?? (0, 0)
            changes.append(MigrationChange(kind: .relationshipRemoved, entity: sourceEntity.name, property: relationship.name,
                                           discardedValues: links, discardedBytes: bytes))
        }
        return changes
    }

    /// The objects of exactly `entity` and their bytes (record values and blobs).
    private func countObjects(of entity: String) throws -> (Int, Int) {
        var objects = 0
        var bytes = 0
        try forEachRecord(of: entity) { record, stored in
            objects += 1
            bytes += record.value.count
            for case .blob(_, let rawLength) in stored.fields { bytes += Int(clamping: rawLength) }
        }
        return (objects, bytes)
    }

    /// For each named field of exactly `entity`: how many objects hold a value (links,
    /// for relationships) and their bytes.
    private func countFields(of entity: String, named names: [String]) throws -> [String: (Int, Int)] {
        guard let layout = schema.shapes[entity]?.layout else { return [:] }
        let numbered = names.compactMap { name in layout.fieldNumbers[name].map { (name, $0) } }
        // A stored to-many's links are its edges (docs/FORMAT.md §11.2), 8 bytes of key each.
        let edgeSides = names.compactMap { name in schema.edgeSide(entity, name).map { (name, $0) } }
        guard !numbered.isEmpty || !edgeSides.isEmpty else { return [:] }
        var counts: [String: (Int, Int)] = [:]
        try forEachRecord(of: entity) { record, stored in
            for (name, number) in numbered where number < stored.fields.count {
                let (values, bytes) = Self.size(of: stored.fields[number])
                guard values > 0 else { continue }
                let sum = counts[name] ?? (0, 0)
                counts[name] = (sum.0 + values, sum.1 + bytes)
            }
            for (name, side) in edgeSides {
                var links = 0
                try ObjectStore.forEachEdgePage(in: records, of: record.key, side: side) { page in
                    links += page.count
                    return true
                }
                guard links > 0 else { continue }
                let sum = counts[name] ?? (0, 0)
                counts[name] = (sum.0 + links, sum.1 + 8 * links)
            }
        }
        return counts
    }

    private func forEachRecord(of entity: String, _ body: (Record, StoredObject) throws -> Void) throws {
        guard let tag = schema.tags[entity] else { return }
        let range = StoreSchema.range(tag: tag)
        var after: RecordKey?
        while true {
            let keys = try records.keys(in: range, after: after, limit: batchSize)
            guard let last = keys.last else { return }
            for case let record? in try records.get(keys) {
                try body(record, try schema.decode(record))
            }
            after = last
        }
    }

    /// How many values a field holds (0 or 1; a list's length) and their bytes.
    static func size(of field: FieldValue) -> (Int, Int) {
        switch field {
        case .null: (0, 0)
        case .value(let value): value.isNull ? (0, 0) : (1, payloadBytes(of: value))
        case .blob(_, let rawLength): (1, Int(clamping: rawLength))
        case .reference: (1, 8)
        case .references(let keys): (keys.count, 8 * keys.count)
        }
    }

    /// The bytes a value's content takes: a string's UTF-8, binary data, 8 for numbers
    /// and dates.
    static func payloadBytes(of value: Value) -> Int {
        switch value {
        case .null: 0
        case .bool: 1
        case .int, .double, .date: 8
        case .decimal(let decimal): decimal.description.utf8.count
        case .string(let text): text.utf8.count
        case .binary(let data), .composite(let data): data.count
        case .uuid: 16
        case .url(let url): url.absoluteString.utf8.count
        }
    }
}
