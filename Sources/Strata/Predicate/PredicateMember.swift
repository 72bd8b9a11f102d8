/// What one key of a ``PredicateSubject`` resolves to.
public enum PredicateMember {
    /// An attribute's value (`.null` when it has none).
    case value(Value)
    /// A to-one relationship's destination, `nil` when it has none.
    case toOne((any PredicateSubject)?)
    /// A to-many relationship's destinations.
    case toMany([any PredicateSubject])
}
