/// How a comparison treats a left side that yields many values (a key path through
/// a to-many relationship).
package enum PredicateQuantifier: String, Sendable, Hashable, CaseIterable {
    /// No quantifier: the left side must be a single value.
    case direct = ""
    /// `ANY` (also `SOME`): true when at least one value satisfies the comparison.
    case any = "ANY"
    /// `ALL`: true when every value satisfies it (so true for an empty collection).
    case all = "ALL"
    /// `NONE`: true when no value satisfies it.
    case none = "NONE"
}
