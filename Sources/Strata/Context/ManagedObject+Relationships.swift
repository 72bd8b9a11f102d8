import StrataLog

extension ManagedObject {
    func relationship(_ key: String) throws -> RelationshipDescription {
        guard let relationship = entity.relationshipsByName[key] else {
            if entity.attributesByName[key] != nil {
                throw StrataError(.typeMismatch, "\(entity.name).\(key) is an attribute; use value(forKey:)", context: ["entity": entity.name, "keyPath": key])
            }
            throw unknownKey(key)
        }
        return relationship
    }

    /// The destination of a to-one relationship, as a fault; nil when unset.
    public func object(_ key: String) throws -> ManagedObject? {
        let relationship = try relationship(key)
        guard !relationship.isToMany else {
            throw StrataError(.typeMismatch, "\(entity.name).\(key) is to-many; use objects(_:)", context: ["entity": entity.name, "keyPath": key])
        }
        guard case .reference(let target) = try field(key) else { return nil }
        let context = try requireContext()
        try context.checkReference(target, of: relationship, in: self)
        return try context.object(forKey: target)
    }

    /// The destinations of a to-many relationship, as faults: in the relationship's
    /// order when ordered, else in key order. A to-many whose inverse is to-one is
    /// derived from that side (an index lookup, never a stored list); any other is
    /// read from its edge records' index entries (no member record is read). Both
    /// include this context's unsaved changes.
    public func objects(_ key: String) throws -> [ManagedObject] {
        let relationship = try relationship(key)
        guard relationship.isToMany else {
            return try object(key).map { [$0] } ?? []
        }
        let context = try requireContext()
        return try context.destinations(of: self, relationship: relationship).map { try context.object(forKey: $0) }
    }

    /// The number of destinations of a to-many relationship, without loading them:
    /// a stored to-many counts its edges' index entries, a derived one its index.
    public func count(_ key: String) throws -> Int {
        let relationship = try relationship(key)
        guard relationship.isToMany else { return try object(key) == nil ? 0 : 1 }
        return try requireContext().destinationCount(of: self, relationship: relationship)
    }

    /// Sets a to-one relationship and keeps the inverse on the other side(s).
    ///
    /// ```swift
    /// try employee.setObject(sales, forKey: "department")   // sales.objects("employees") now has employee
    /// ```
    public func setObject(_ object: ManagedObject?, forKey key: String) throws {
        let relationship = try relationship(key)
        guard !relationship.isToMany else {
            throw StrataError(.typeMismatch, "\(entity.name).\(key) is to-many; use add(_:to:) or setObjects(_:forKey:)", context: ["entity": entity.name, "keyPath": key])
        }
        try requireContext().setToOne(self, relationship: relationship, to: object)
    }

    /// Adds an object to a to-many relationship (and sets its inverse).
    public func add(_ object: ManagedObject, to key: String) throws {
        let relationship = try relationship(key)
        guard relationship.isToMany else { return try setObject(object, forKey: key) }
        try requireContext().addToMany(self, relationship: relationship, object)
    }

    /// Removes an object from a to-many relationship (and clears its inverse).
    public func remove(_ object: ManagedObject, from key: String) throws {
        let relationship = try relationship(key)
        guard relationship.isToMany else {
            if try self.object(key) == object { try setObject(nil, forKey: key) }
            return
        }
        try requireContext().removeFromMany(self, relationship: relationship, object)
    }

    /// Replaces a to-many relationship's destinations; on an ordered one, in the
    /// given order. Members that keep their relative order keep their edges: moving
    /// one member rewrites about one edge, not the list.
    public func setObjects(_ objects: [ManagedObject], forKey key: String) throws {
        let relationship = try relationship(key)
        let current = try self.objects(key)
        let keep = Set(objects.map(\.objectID))
        for old in current where !keep.contains(old.objectID) { try remove(old, from: key) }
        let existing = Set(current.map(\.objectID))
        for new in objects where !existing.contains(new.objectID) { try add(new, to: key) }
        if relationship.isOrdered {
            try requireContext().setOrder(self, relationship: relationship, objects.map(\.recordKey))
        }
    }
}
