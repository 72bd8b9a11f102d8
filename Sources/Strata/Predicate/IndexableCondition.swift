/// A condition an index on one attribute can serve: found among the top-level
/// `AND`-ed comparisons of a predicate by ``Predicate/indexableConditions()``.
///
/// ```swift
/// let predicate = try Predicate(format: "age >= 18 AND age < 65 AND name BEGINSWITH 'J'")
/// predicate.indexableConditions()
/// // [age ≥ 18, age < 65]  (as .range conditions); BEGINSWITH is not indexable here
/// ```
package struct IndexableCondition: Sendable, Hashable {
    /// What the condition asks of the attribute's value.
    package enum Kind: Sendable, Hashable {
        /// `key == value` (`value` may be `.null`).
        case equalTo(Value)
        /// `key IN {values}`.
        case oneOf([Value])
        /// `key > / >= lower`, `key < / <= upper`, or `key BETWEEN {lower, upper}`:
        /// a missing bound is unbounded.
        case range(lower: Bound?, upper: Bound?)
    }

    /// One end of a range.
    package struct Bound: Sendable, Hashable {
        /// The bounding value; never `.null`.
        package var value: Value
        /// Whether the bound itself is within the range.
        package var isInclusive: Bool

        /// Creates a bound.
        package init(_ value: Value, inclusive: Bool) {
            self.value = value
            self.isInclusive = inclusive
        }
    }

    /// The attribute's name: a plain key, never a path through a relationship.
    package var key: String
    /// What the condition asks.
    package var kind: Kind
    /// The `AND`-ed operand this condition came from, so a planner can drop it from
    /// what remains to evaluate once an index serves it.
    package var source: Predicate

    /// Creates a condition.
    package init(key: String, kind: Kind, source: Predicate) {
        self.key = key
        self.kind = kind
        self.source = source
    }
}
