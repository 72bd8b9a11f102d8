extension KeyPathExpression {
    /// `lhs == rhs`: equal values (numbers compare across int, double and decimal).
    public static func == (lhs: KeyPathExpression, rhs: some PredicateArgument) -> Predicate {
        lhs.compare(.equalTo, rhs)
    }

    /// `lhs == rhs` with an expression on the right: `.key("a") == .keyPath("b")`.
    public static func == (lhs: KeyPathExpression, rhs: PredicateExpression) -> Predicate {
        lhs.compare(.equalTo, rhs)
    }

    /// `lhs == nil`.
    public static func == (lhs: KeyPathExpression, rhs: _OptionalNilComparisonType) -> Predicate {
        lhs.compare(.equalTo, Value.null)
    }

    /// `lhs != rhs`.
    public static func != (lhs: KeyPathExpression, rhs: some PredicateArgument) -> Predicate {
        lhs.compare(.notEqualTo, rhs)
    }

    /// `lhs != rhs` with an expression on the right.
    public static func != (lhs: KeyPathExpression, rhs: PredicateExpression) -> Predicate {
        lhs.compare(.notEqualTo, rhs)
    }

    /// `lhs != nil`.
    public static func != (lhs: KeyPathExpression, rhs: _OptionalNilComparisonType) -> Predicate {
        lhs.compare(.notEqualTo, Value.null)
    }

    /// `lhs < rhs`; false when either side is nil.
    public static func < (lhs: KeyPathExpression, rhs: some PredicateArgument) -> Predicate {
        lhs.compare(.lessThan, rhs)
    }

    /// `lhs < rhs` with an expression on the right.
    public static func < (lhs: KeyPathExpression, rhs: PredicateExpression) -> Predicate {
        lhs.compare(.lessThan, rhs)
    }

    /// `lhs <= rhs`; false when either side is nil.
    public static func <= (lhs: KeyPathExpression, rhs: some PredicateArgument) -> Predicate {
        lhs.compare(.lessThanOrEqualTo, rhs)
    }

    /// `lhs <= rhs` with an expression on the right.
    public static func <= (lhs: KeyPathExpression, rhs: PredicateExpression) -> Predicate {
        lhs.compare(.lessThanOrEqualTo, rhs)
    }

    /// `lhs > rhs`; false when either side is nil.
    public static func > (lhs: KeyPathExpression, rhs: some PredicateArgument) -> Predicate {
        lhs.compare(.greaterThan, rhs)
    }

    /// `lhs > rhs` with an expression on the right.
    public static func > (lhs: KeyPathExpression, rhs: PredicateExpression) -> Predicate {
        lhs.compare(.greaterThan, rhs)
    }

    /// `lhs >= rhs`; false when either side is nil.
    public static func >= (lhs: KeyPathExpression, rhs: some PredicateArgument) -> Predicate {
        lhs.compare(.greaterThanOrEqualTo, rhs)
    }

    /// `lhs >= rhs` with an expression on the right.
    public static func >= (lhs: KeyPathExpression, rhs: PredicateExpression) -> Predicate {
        lhs.compare(.greaterThanOrEqualTo, rhs)
    }
}
