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

    /// The edge side an object's to-many reads, nil for a to-one or a derived to-many.
    func edgeSide(_ object: ManagedObject, _ relationship: RelationshipDescription) -> EdgeSide? {
        relationship.isToMany ? schema.edgeSide(object.entity.name, relationship.name) : nil
    }

    /// Sets `owner.relationship` (to-one) and keeps its inverse: a 1:1 partner is
    /// unlinked from its old partner; an ordered to-many inverse moves the edge from
    /// the old owner to the new one; a derived to-many inverse needs nothing (it is
    /// read from this side).
    func setToOne(_ owner: ManagedObject, relationship: RelationshipDescription, to target: ManagedObject?) throws {
        if let target { try checkDestination(target, for: relationship, on: owner) }
        let oldKey: RecordKey? = if case .reference(let k) = try owner.field(relationship.name) { k } else { nil }
        let newKey = target?.recordKey
        if oldKey == newKey { return }
        try willChange(owner)
        owner.changes[relationship.name] = newKey.map(FieldValue.reference) ?? .null
        guard let inverse = inverse(of: relationship) else { return }
        let oldTarget = try oldKey.map { try object(forKey: $0) }
        if !inverse.isToMany {
            if let oldTarget, !oldTarget.isDeleted, case .reference(owner.recordKey) = try oldTarget.field(inverse.name) {
                try willChange(oldTarget)
                oldTarget.changes[inverse.name] = .null
            }
            if let target {
                if case .reference(let partnerKey) = try target.field(inverse.name), partnerKey != owner.recordKey {
                    let partner = try object(forKey: partnerKey)
                    if !partner.isDeleted {
                        try willChange(partner)
                        partner.changes[relationship.name] = .null
                    }
                }
                try willChange(target)
                target.changes[inverse.name] = .reference(owner.recordKey)
            }
        } else {
            if let oldTarget, !oldTarget.isDeleted, let side = edgeSide(oldTarget, inverse) {
                try removeEdge(oldTarget, side, owner)
            }
            if let target, let side = edgeSide(target, inverse) { try addEdge(target, side, owner) }
        }
    }

    func addToMany(_ owner: ManagedObject, relationship: RelationshipDescription, _ object: ManagedObject) throws {
        try checkDestination(object, for: relationship, on: owner)
        if let inverse = inverse(of: relationship), !inverse.isToMany {
            return try setToOne(object, relationship: inverse, to: owner)
        }
        guard let side = edgeSide(owner, relationship) else { return }
        try addEdge(owner, side, object)
    }

    func removeFromMany(_ owner: ManagedObject, relationship: RelationshipDescription, _ object: ManagedObject) throws {
        if let inverse = inverse(of: relationship), !inverse.isToMany {
            if case .reference(owner.recordKey) = try object.field(inverse.name) {
                try setToOne(object, relationship: inverse, to: nil)
            }
            return
        }
        guard let side = edgeSide(owner, relationship) else { return }
        try removeEdge(owner, side, object)
    }

    /// Sets the order of an ordered to-many's destinations (they are its members).
    func setOrder(_ owner: ManagedObject, relationship: RelationshipDescription, _ keys: [RecordKey]) throws {
        guard let side = edgeSide(owner, relationship), side.isOrdered else { return }
        try convertLegacyList(owner, side)
        let key = owner.recordKey
        if side.isOwner {
            edgeChanges[side.relation.tag, default: EdgeChanges()].ownerOrders[key] = keys
        } else {
            edgeChanges[side.relation.tag, default: EdgeChanges()].memberOrders[key] = keys
        }
    }

    private func addEdge(_ object: ManagedObject, _ side: EdgeSide, _ destination: ManagedObject) throws {
        try convertLegacyLists(object, side, destination)
        edgeChanges[side.relation.tag, default: EdgeChanges()].add(side.pair(object.recordKey, destination.recordKey))
    }

    private func removeEdge(_ object: ManagedObject, _ side: EdgeSide, _ destination: ManagedObject) throws {
        try convertLegacyLists(object, side, destination)
        edgeChanges[side.relation.tag, default: EdgeChanges()].remove(side.pair(object.recordKey, destination.recordKey))
    }

    // MARK: Lists from before edges

    /// Turns the lists of both ends of a changing membership into edges, so that the
    /// change is not hidden by a list that still names the pair (docs/FORMAT.md §11.3).
    private func convertLegacyLists(_ object: ManagedObject, _ side: EdgeSide, _ destination: ManagedObject) throws {
        guard schema.mayHaveLegacyLists else { return }
        try convertLegacyList(object, side)
        let otherSide = EdgeSide(relation: side.relation, isOwner: !side.isOwner)
        if otherSide.relationshipName != nil, schema.edgeSide(destination.entity.name, otherSide.relationshipName ?? "") != nil {
            try convertLegacyList(destination, otherSide)
        }
    }

    /// Moves an object's list for `side` into pending edges and clears the field. The
    /// whole side as read before (list, then edges already there) becomes its order.
    func convertLegacyList(_ object: ManagedObject, _ side: EdgeSide) throws {
        guard schema.mayHaveLegacyLists, let name = side.relationshipName, let list = try legacyList(object, name) else { return }
        let view = try edgeDestinations(of: object, side: side, name: name)
        try willChange(object)
        object.changes[name] = .null
        var changes = edgeChanges[side.relation.tag] ?? EdgeChanges()
        let listed = Set(list)
        for key in view where listed.contains(key) { changes.add(side.pair(object.recordKey, key)) }
        if side.isOrdered {
            if side.isOwner { changes.ownerOrders[object.recordKey] = view } else { changes.memberOrders[object.recordKey] = view }
        }
        edgeChanges[side.relation.tag] = changes
    }

    /// The list a record from before edges holds for a to-many, nil when there is none.
    func legacyList(_ object: ManagedObject, _ name: String) throws -> [RecordKey]? {
        guard schema.mayHaveLegacyLists, !object.isNew, object.layout.fieldNumbers[name] != nil else { return nil }
        if case .references(let keys) = try object.field(name) { return keys }
        return nil
    }

    // MARK: Reading

    /// The keys of a to-many's destinations as this context sees them: committed
    /// edges (or a list from before edges) with this context's changes applied, or
    /// the store's index of the inverse to-one corrected by unsaved changes.
    func destinations(of owner: ManagedObject, relationship: RelationshipDescription) throws -> [RecordKey] {
        if let side = edgeSide(owner, relationship) { return try edgeDestinations(of: owner, side: side, name: relationship.name) }
        guard let inverse = inverse(of: relationship),
              let index = try schema.layout(relationship.destinationEntityName).fields.first(where: { $0.name == inverse.name })?.termIndex else { return [] }
        let ownerKey = owner.recordKey
        var keys = Set(owner.isNew ? [] : try store.records.keys(for: IndexTerm(index: index, value: ObjectCodec.bigEndian(ownerKey.rawValue))))
        for object in changed.values where object.entity.isKind(of: relationship.destinationEntityName) {
            let key = object.recordKey
            if object.isDeleted {
                keys.remove(key)
            } else if let change = object.changes[inverse.name] {
                if change == .reference(ownerKey) { keys.insert(key) } else { keys.remove(key) }
            }
        }
        return keys.sorted()
    }

    private func isDeletedHere(_ key: RecordKey) -> Bool { held(key)?.isDeleted ?? false }

    /// A side's destinations: a list from before edges first, if the record still has
    /// one, then committed edges (in position or key order), then edges added here.
    private func edgeDestinations(of object: ManagedObject, side: EdgeSide, name: String) throws -> [RecordKey] {
        let key = object.recordKey
        let changes = edgeChanges[side.relation.tag]
        if side.isOrdered, let order = side.isOwner ? changes?.ownerOrders[key] : changes?.memberOrders[key] {
            return order.filter { !isDeletedHere($0) }
        }
        var result: [RecordKey] = []
        var seen = Set<RecordKey>()
        if let list = try legacyList(object, name) {
            for destination in list where try !isDeletedHere(destination) && store.records.contains(destination) {
                if seen.insert(destination).inserted { result.append(destination) }
            }
        }
        if !object.isNew {
            try store.forEachEdgePage(of: key, side: side) { page in
                for entry in page where !(changes?.isRemoved(side.pair(key, entry.destination)) ?? false) && !isDeletedHere(entry.destination) {
                    if seen.insert(entry.destination).inserted { result.append(entry.destination) }
                }
                return true
            }
        }
        if let changes {
            for pair in changes.added where (side.isOwner ? pair.owner : pair.member) == key {
                let destination = side.isOwner ? pair.member : pair.owner
                if !isDeletedHere(destination), seen.insert(destination).inserted { result.append(destination) }
            }
        }
        return side.isOrdered ? result : result.sorted()
    }

    /// How many destinations a to-many has as this context sees them: committed edges
    /// are counted from index entries a page at a time (no member is read, and no
    /// list of them is built), then corrected by this context's changes.
    func destinationCount(of owner: ManagedObject, relationship: RelationshipDescription) throws -> Int {
        guard let side = edgeSide(owner, relationship) else { return try destinations(of: owner, relationship: relationship).count }
        if try legacyList(owner, relationship.name) != nil { return try destinations(of: owner, relationship: relationship).count }
        let key = owner.recordKey
        let changes = edgeChanges[side.relation.tag]
        if side.isOrdered, let order = side.isOwner ? changes?.ownerOrders[key] : changes?.memberOrders[key] {
            return order.count(where: { !isDeletedHere($0) })
        }
        var count = 0
        if !owner.isNew {
            try store.forEachEdgePage(of: key, side: side) { page in
                count += page.count(where: { entry in !(changes?.isRemoved(side.pair(key, entry.destination)) ?? false) && !isDeletedHere(entry.destination) })
                return true
            }
        }
        if let changes {
            for pair in changes.added where (side.isOwner ? pair.owner : pair.member) == key {
                let destination = side.isOwner ? pair.member : pair.owner
                guard !isDeletedHere(destination) else { continue }
                // Counted already when committed and not removed here.
                if try changes.isRemoved(pair) || owner.isNew || store.edgeKeys(pair, relation: side.relation).isEmpty { count += 1 }
            }
        }
        return count
    }
}

extension EdgeSide {
    /// The relationship this side's entity reads (the inverse's name on the member side).
    var relationshipName: String? { isOwner ? relation.relationship : relation.inverseName }
}
