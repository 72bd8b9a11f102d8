/// A condition on an object, as `NSPredicate` gives Core Data users: comparisons,
/// string operators, `IN`, `BETWEEN`, `AND`/`OR`/`NOT`, key paths through to-one
/// relationships and `ANY`/`ALL`/`NONE`/`@count` over to-many ones.
///
/// Build one from a format string or with the Swift builder; both give the same tree:
///
/// ```swift
/// let parsed = try Predicate(format: "age >= 18 AND name BEGINSWITH[c] 'jo'")
/// let built: Predicate = .key("age") >= 18 && .key("name").beginsWith("jo", caseInsensitive: true)
/// // parsed == built
/// ```
///
/// A predicate is a value: `Sendable`, `Hashable`, and independent of any model until
/// ``validate(against:in:)`` checks it against an entity.
///
/// Foundation also declares a (generic) `Predicate`. In a file that imports both
/// Foundation and Strata, write `Strata.Predicate`, or declare
/// `typealias Predicate = Strata.Predicate` once in your module.
///
/// ## Topics
/// - ``init(format:_:)``
/// - ``evaluate(with:)``
/// - ``withSubstitutionVariables(_:)-([String:PredicateArgument])``
/// - ``withSubstitutionVariables(_:)-([String:Value])``
/// - ``validate(against:in:)``
public indirect enum Predicate: Sendable, Hashable {
    /// Always true: `TRUEPREDICATE`.
    case truePredicate
    /// Always false: `FALSEPREDICATE`.
    case falsePredicate
    /// A comparison of two expressions, such as `age > 18` or `ANY employees.salary > 1000`.
    case comparison(PredicateComparison)
    /// True when every operand is true; an empty list is true.
    case and([Predicate])
    /// True when at least one operand is true; an empty list is false.
    case or([Predicate])
    /// True when the operand is false.
    case not(Predicate)
}
