import StrataLog

extension ObjectContext {
    func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let name = relationship.inverseName else { return nil }
        return store.model.entity(named: relationship.destinationEntityName)?.relationshipsByName[name]
    }

    func checkDestination(_ object: ManagedObject, for relationship: RelationshipDescription, on owner: ManagedObject) throws {
        guard object.entity.isKind(of: relationship.destinationEntityName) else {
            throw StrataError(.typeMismatch, "\(owner.entity.name).\(relationship.name) takes \(relationship.destinationEntityName), not \(object.entity.name)",
                              context: ["entity": owner.entity.name, "keyPath": relationship.name])
        }
        guard object.context === self else {
            throw StrataError(.invalidArgument, "\(object.objectID) belongs to another context", context: ["object": object.objectID.uriRepresentation])
        }
        if object.isDeleted {
            throw StrataError(.invalidArgument, "\(object.objectID) is deleted", context: ["object": object.objectID.uriRepresentation])
        }
    }

    /// Sets `owner.relationship` (to-one) and keeps its inverse: a 1:1 partner is
    /// unlinked from its old partner; an ordered to-many inverse list is updated; a
    /// derived to-many inverse needs nothing (it is read from this side).
    func setToOne(_ owner: ManagedObject, relationship: RelationshipDescription, to target: ManagedObject?) throws {
        if let target { try checkDestination(target, for: relationship, on: owner) }
        let oldKey: RecordKey? = if case .reference(let k) = try owner.field(relationship.name) { k } else { nil }
        let newKey = target?.objectID.key
        if oldKey == newKey { return }
        try willChange(owner)
        owner.changes[relationship.name] = newKey.map(FieldValue.reference) ?? .null
        guard let inverse = inverse(of: relationship) else { return }
        let oldTarget = try oldKey.map { try object(forKey: $0) }
        if !inverse.isToMany {
            if let oldTarget, !oldTarget.isDeleted, case .reference(owner.objectID.key) = try oldTarget.field(inverse.name) {
                try willChange(oldTarget)
                oldTarget.changes[inverse.name] = .null
            }
            if let target {
                if case .reference(let partnerKey) = try target.field(inverse.name), partnerKey != owner.objectID.key {
                    let partner = try object(forKey: partnerKey)
                    if !partner.isDeleted {
                        try willChange(partner)
                        partner.changes[relationship.name] = .null
                    }
                }
                try willChange(target)
                target.changes[inverse.name] = .reference(owner.objectID.key)
            }
        } else if StoreSchema.isStoredList(inverse, model: store.model) {
            if let oldTarget, !oldTarget.isDeleted { try editList(oldTarget, inverse) { $0.removeAll { $0 == owner.objectID.key } } }
            if let target { try editList(target, inverse) { if !$0.contains(owner.objectID.key) { $0.append(owner.objectID.key) } } }
        }
    }

    func addToMany(_ owner: ManagedObject, relationship: RelationshipDescription, _ object: ManagedObject) throws {
        try checkDestination(object, for: relationship, on: owner)
        let inverse = inverse(of: relationship)
        if let inverse, !inverse.isToMany {
            return try setToOne(object, relationship: inverse, to: owner)
        }
        try editList(owner, relationship) { if !$0.contains(object.objectID.key) { $0.append(object.objectID.key) } }
        if let inverse {
            try editList(object, inverse) { if !$0.contains(owner.objectID.key) { $0.append(owner.objectID.key) } }
        }
    }

    func removeFromMany(_ owner: ManagedObject, relationship: RelationshipDescription, _ object: ManagedObject) throws {
        let inverse = inverse(of: relationship)
        if let inverse, !inverse.isToMany {
            if case .reference(owner.objectID.key) = try object.field(inverse.name) {
                try setToOne(object, relationship: inverse, to: nil)
            }
            return
        }
        try editList(owner, relationship) { $0.removeAll { $0 == object.objectID.key } }
        if let inverse, !object.isDeleted {
            try editList(object, inverse) { $0.removeAll { $0 == owner.objectID.key } }
        }
    }

    func setList(_ owner: ManagedObject, relationship: RelationshipDescription, _ keys: [RecordKey]) throws {
        guard StoreSchema.isStoredList(relationship, model: store.model) else { return }
        try editList(owner, relationship) { $0 = keys }
    }

    private func editList(_ owner: ManagedObject, _ relationship: RelationshipDescription, _ edit: (inout [RecordKey]) -> Void) throws {
        var keys: [RecordKey] = if case .references(let k) = try owner.field(relationship.name) { k } else { [] }
        let before = keys
        edit(&keys)
        guard keys != before else { return }
        try willChange(owner)
        owner.changes[relationship.name] = .references(keys)
    }

    /// The keys of a to-many's destinations as this context sees them: a stored list,
    /// or the store's index of the inverse to-one corrected by unsaved changes.
    func destinations(of owner: ManagedObject, relationship: RelationshipDescription) throws -> [RecordKey] {
        if StoreSchema.isStoredList(relationship, model: store.model) {
            guard case .references(let keys) = try owner.field(relationship.name) else { return [] }
            return keys.filter { !(registry[$0]?.object?.isDeleted ?? false) }
        }
        guard let inverse = inverse(of: relationship),
              let index = try schema.layout(relationship.destinationEntityName).fields.first(where: { $0.name == inverse.name })?.termIndex else { return [] }
        let ownerKey = owner.objectID.key
        var keys = Set(owner.isNew ? [] : store.records.keys(for: IndexTerm(index: index, value: ObjectCodec.bigEndian(ownerKey.rawValue))))
        for object in changed.values where object.entity.isKind(of: relationship.destinationEntityName) {
            let key = object.objectID.key
            if object.isDeleted {
                keys.remove(key)
            } else if let change = object.changes[inverse.name] {
                if change == .reference(ownerKey) { keys.insert(key) } else { keys.remove(key) }
            }
        }
        return keys.sorted()
    }
}
