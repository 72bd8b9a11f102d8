/// The operator of a ``PredicateComparison``.
public enum PredicateOperator: String, Sendable, Hashable, CaseIterable {
    /// `==` (also `=`).
    case equalTo = "=="
    /// `!=` (also `<>`).
    case notEqualTo = "!="
    /// `<`.
    case lessThan = "<"
    /// `<=` (also `=<`).
    case lessThanOrEqualTo = "<="
    /// `>`.
    case greaterThan = ">"
    /// `>=` (also `=>`).
    case greaterThanOrEqualTo = ">="
    /// `BEGINSWITH`: the left string starts with the right one.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`: the left string ends with the right one.
    case endsWith = "ENDSWITH"
    /// `CONTAINS`: the right string occurs in the left one.
    case contains = "CONTAINS"
    /// `LIKE`: the left string matches the right pattern, where `*` matches any run
    /// of characters and `?` exactly one; `\` escapes a wildcard.
    case like = "LIKE"
    /// `MATCHES`: the left string matches the right regular expression as a whole.
    case matches = "MATCHES"
    /// `IN`: the left value is one of the right list's values.
    case `in` = "IN"
    /// `BETWEEN`: the left value lies within the right two-element list, bounds included.
    case between = "BETWEEN"

    /// Whether the operator works on strings only.
    package var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: return true
        default: return false
        }
    }

    /// Whether the operator orders values (`<`, `<=`, `>`, `>=`, `BETWEEN`).
    package var isOrdering: Bool {
        switch self {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between: return true
        default: return false
        }
    }
}
