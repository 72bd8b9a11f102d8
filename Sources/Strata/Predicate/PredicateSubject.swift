/// An object a predicate can be evaluated against: it resolves one key at a time,
/// to an attribute's value or to the objects a relationship leads to.
///
/// The object layer's managed objects implement it; so can any type of yours that
/// answers keys, as below.
///
/// ```swift
/// struct Row: PredicateSubject {
///     var age: Int64
///     func member(forKey key: String) throws -> PredicateMember {
///         guard key == "age" else { throw StrataError(.unknownKeyPath, "Row has no property '\(key)'") }
///         return .value(.int(age))
///     }
/// }
/// ```
public protocol PredicateSubject {
    /// The value or related objects for one key (one component of a key path).
    ///
    /// - Throws: `StrataError` `.unknownKeyPath` for a key the object does not have,
    ///   or whatever reading the object throws (a fault that cannot be fired).
    func member(forKey key: String) throws -> PredicateMember

    /// The subject's identity, when it is a stored object: what `relationship == %@`
    /// and `$FETCH_SOURCE` compare by. Nil (the default) for plain values.
    var predicateObjectID: ObjectID? { get }
}

extension PredicateSubject {
    /// No identity: the subject is a plain value.
    public var predicateObjectID: ObjectID? { nil }
}
