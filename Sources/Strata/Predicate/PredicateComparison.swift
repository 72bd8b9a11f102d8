/// A comparison: `lhs op rhs`, optionally quantified over a to-many left side and
/// with string options (`[c]`, `[d]`). A format string or the builder makes one:
///
/// ```swift
/// let rich: Predicate = .any("employees.salary") > 1000  // ANY employees.salary > 1000
/// ```
public struct PredicateComparison: Sendable, Hashable {
    /// The left expression; the one a quantifier ranges over.
    package var lhs: PredicateExpression
    /// The operator.
    package var op: PredicateOperator
    /// The right expression; a list for `BETWEEN`, a list, variable or key path for `IN`.
    package var rhs: PredicateExpression
    /// How a many-valued left side is combined: `ANY`, `ALL`, `NONE`, or not at all.
    package var quantifier: PredicateQuantifier
    /// String folding applied to both sides before comparing strings.
    package var options: StringComparisonOptions

    /// Creates a comparison.
    package init(
        _ lhs: PredicateExpression,
        _ op: PredicateOperator,
        _ rhs: PredicateExpression,
        quantifier: PredicateQuantifier = .direct,
        options: StringComparisonOptions = []
    ) {
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.quantifier = quantifier
        self.options = options
    }
}
