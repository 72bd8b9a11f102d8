/// The left side of a comparison in the Swift builder: a key path, optionally
/// quantified (`ANY`, `ALL`, `NONE`), or a collection count.
///
/// Operators and methods on it return a ``Predicate``; `&&`, `||` and `!` combine them:
///
/// ```swift
/// let predicate: Predicate = .key("age") == 25 && .key("name").beginsWith("jo", caseInsensitive: true)
/// let rich: Predicate = .any("employees.salary") > 1000 || .count("employees") > 3
/// let free: Predicate = .key("department") == nil
/// ```
///
/// The right side of an operator is any ``PredicateArgument`` (a Swift value, a
/// `Value`, an array for `in`), or a ``PredicateExpression`` such as
/// `.keyPath("other")` or `.variable("minimum")`.
///
/// The type is deliberately not `Equatable`: `==` on it builds a predicate.
public struct KeyPathExpression: Sendable {
    /// The expression compared: a key path or a count.
    package var expression: PredicateExpression
    /// The quantifier applied to a many-valued key path.
    package var quantifier: PredicateQuantifier

    /// Creates a builder operand from an expression and a quantifier.
    package init(_ expression: PredicateExpression, quantifier: PredicateQuantifier = .direct) {
        self.expression = expression
        self.quantifier = quantifier
    }

    /// A key path: `.key("age")`, `.key("department.name")`.
    public static func key(_ path: String) -> KeyPathExpression {
        KeyPathExpression(.keyPath(path))
    }

    /// `ANY path`: true when some value along a to-many key path satisfies the comparison.
    public static func any(_ path: String) -> KeyPathExpression {
        KeyPathExpression(.keyPath(path), quantifier: .any)
    }

    /// `ALL path`: true when every value along a to-many key path satisfies the comparison.
    public static func all(_ path: String) -> KeyPathExpression {
        KeyPathExpression(.keyPath(path), quantifier: .all)
    }

    /// `NONE path`: true when no value along a to-many key path satisfies the comparison.
    public static func none(_ path: String) -> KeyPathExpression {
        KeyPathExpression(.keyPath(path), quantifier: .none)
    }

    /// `path.@count`: the number of objects a to-many key path leads to.
    public static func count(_ path: String) -> KeyPathExpression {
        KeyPathExpression(.count(path))
    }

    /// The count of this key path's objects: `.key("employees").count` is `employees.@count`.
    public var count: KeyPathExpression {
        switch expression {
        case .keyPath(let path): KeyPathExpression(.count(path), quantifier: quantifier)
        default: self
        }
    }

    /// A comparison of this operand with any right side, for operators without a Swift symbol.
    ///
    /// ```swift
    /// .key("name").compare(.equalTo, "zoe", options: [.caseInsensitive, .diacriticInsensitive])
    /// ```
    public func compare(
        _ op: PredicateOperator, _ rhs: some PredicateArgument, options: StringComparisonOptions = []
    ) -> Predicate {
        .comparison(PredicateComparison(expression, op, rhs.predicateExpression, quantifier: quantifier, options: options))
    }
}

extension KeyPathExpression: PredicateArgument {
    /// The key path or count, so that a key can be the right side of another comparison.
    public var predicateExpression: PredicateExpression { expression }
}
