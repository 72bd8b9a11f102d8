extension Predicate {
    /// `lhs AND rhs`. A left side that is already an `AND` is extended, so that
    /// `a && b && c` equals the parsed `a AND b AND c`.
    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate {
        if case .and(let operands) = lhs { return .and(operands + [rhs]) }
        return .and([lhs, rhs])
    }

    /// `lhs OR rhs`. A left side that is already an `OR` is extended.
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate {
        if case .or(let operands) = lhs { return .or(operands + [rhs]) }
        return .or([lhs, rhs])
    }

    /// `NOT operand`.
    public static prefix func ! (operand: Predicate) -> Predicate {
        .not(operand)
    }

}
