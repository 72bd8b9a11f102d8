import StrataLog

/// Predicates and sort keys read managed objects directly: attributes as values,
/// to-one relationships as their destination, to-many as the list of destinations.
extension ManagedObject: PredicateSubject {
    public func member(forKey key: String) throws -> PredicateMember {
        if entity.attributesByName[key] != nil { return .value(try value(forKey: key)) }
        guard let relationship = entity.relationshipsByName[key] else { throw unknownKey(key) }
        if relationship.isToMany { return .toMany(try objects(key)) }
        return .toOne(try object(key))
    }

    /// The object's id: `department == %@` with this object matches the objects whose
    /// department it is.
    public var predicateObjectID: ObjectID? { objectID }
}

extension ManagedObject: PredicateArgument {
    /// `.object(objectID)`: the object compared by identity (`department == %@`).
    public var predicateExpression: PredicateExpression { .object(objectID) }
}
