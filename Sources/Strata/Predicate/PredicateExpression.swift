/// One side of a comparison: a constant, a key path, a collection count, a
/// `$variable`, or a list of expressions (the right side of `IN` and `BETWEEN`).
///
/// Key paths are dotted strings as in a format string (`"department.name"`).
public indirect enum PredicateExpression: Sendable, Hashable {
    /// A literal value; `.constant(.null)` is `nil`/`NULL`.
    case constant(Value)
    /// A key path from the evaluated object: `age`, `department.name`, `employees.salary`.
    case keyPath(String)
    /// The number of objects a to-many key path leads to: `employees.@count`.
    /// The associated key path is the one before `.@count`.
    case count(String)
    /// A substitution variable, `$name`, replaced by `Predicate.withSubstitutionVariables(_:)`.
    case variable(String)
    /// A list literal, `{1, 2, 3}`: the right side of `IN` and `BETWEEN`.
    case list([PredicateExpression])
    /// A stored object, compared by identity with a relationship's destination:
    /// `department == %@` with a `ManagedObject` or an ``ObjectID`` as argument, or
    /// `$FETCH_SOURCE` in a fetched property. It has no literal in the format language.
    case object(ObjectID)

    /// The key path's components, or an empty array for an expression without a key path.
    package var keyPathComponents: [String] {
        switch self {
        case .keyPath(let path), .count(let path):
            return path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        case .constant, .variable, .list, .object:
            return []
        }
    }
}
