import Foundation
import StrataLog

/// What a fetch judges and sorts: a managed object, seen either as the context sees
/// it (unsaved changes applied) or as the store holds it (`includesPendingChanges`
/// off). One concrete type, so both views go through the same generic sort.
struct FetchSubject: PredicateSubject {
    let object: ManagedObject
    let view: any PredicateSubject

    func member(forKey key: String) throws -> PredicateMember {
        try view.member(forKey: key)
    }

    var predicateObjectID: ObjectID? { object.objectID }
}

extension ObjectContext {
    /// The subject a fetch evaluates for `object`: the object itself, or with
    /// `storeOnly` its stored record (so unsaved updates are ignored and unsaved deletes
    /// still match, as Core Data's `includesPendingChanges = false` does).
    func fetchSubject(_ object: ManagedObject, storeOnly: Bool) throws -> FetchSubject {
        guard storeOnly, let stored = object.stored else { return FetchSubject(object: object, view: object) }
        return FetchSubject(object: object, view: StoredObjectSubject(context: self, entity: object.entity, layout: object.layout, stored: stored))
    }

    /// The stored view of the object with `key`: its record as this context last read
    /// it, or as the store holds it now; nil when the store has none.
    func storedSubject(forKey key: RecordKey) throws -> StoredObjectSubject? {
        let object = try object(forKey: key)
        if object.isNew { return nil }
        if object.stored == nil || object.loadedFieldNumbers != nil {
            guard (try? object.fire()) != nil else { return nil }
        }
        guard let stored = object.stored else { return nil }
        return StoredObjectSubject(context: self, entity: object.entity, layout: object.layout, stored: stored)
    }
}

/// A record as the store holds it, read as a predicate subject: attributes from its
/// fields, to-one relationships to the destination's stored record, to-many
/// relationships from the store's index only — derived ones from the to-one side,
/// stored ones from their committed edges (this context's unsaved changes do not
/// count).
struct StoredObjectSubject: PredicateSubject {
    let context: ObjectContext
    let entity: EntityDescription
    let layout: StoreSchema.EntityLayout
    let stored: StoredObject

    func member(forKey key: String) throws -> PredicateMember {
        if let attribute = entity.attributesByName[key] {
            if attribute.isTransient { return .value(attribute.defaultValue ?? .null) }
            switch field(key) {
            case .value(let value): return .value(value)
            case .blob(let ref, _): return .value(.binary(Data(try context.store.records.readBlob(ref))))
            default: return .value(.null)
            }
        }
        guard let relationship = entity.relationshipsByName[key] else {
            throw StrataError(.unknownKeyPath, "\(entity.name) has no property '\(key)'", context: ["entity": entity.name, "keyPath": key])
        }
        if !relationship.isToMany {
            guard case .reference(let target) = field(key) else { return .toOne(nil) }
            return .toOne(try context.storedSubject(forKey: target))
        }
        if let side = context.schema.edgeSide(entity.name, key) {
            // A list from before edges first (docs/FORMAT.md §11.3), then the edges.
            var keys: [RecordKey] = if case .references(let list) = field(key) { list } else { [] }
            var seen = Set(keys)
            for edge in try context.store.storedEdges(of: stored.key, side: side) where seen.insert(edge.destination).inserted {
                keys.append(edge.destination)
            }
            if !side.isOrdered { keys.sort() }
            return .toMany(try keys.compactMap { try context.storedSubject(forKey: $0) })
        }
        guard let inverse = context.inverse(of: relationship),
              let index = try context.schema.layout(relationship.destinationEntityName).fields.first(where: { $0.name == inverse.name })?.termIndex
        else { return .toMany([]) }
        let keys = try context.store.records.keys(for: IndexTerm(index: index, value: ObjectCodec.bigEndian(stored.key.rawValue)))
        return .toMany(try keys.sorted().compactMap { try context.storedSubject(forKey: $0) })
    }

    var predicateObjectID: ObjectID? { context.store.objectID(for: stored.key) }

    private func field(_ key: String) -> FieldValue {
        guard let number = layout.fieldNumbers[key], number < stored.fields.count else { return .null }
        return stored.fields[number]
    }
}
