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

extension Predicate {
    /// A key path operand, so that a method chain reads where a `Predicate` is
    /// expected: `let p: Predicate = .key("name").beginsWith("jo")`.
    public static func key(_ path: String) -> KeyPathExpression { .key(path) }

    /// `ANY path`, for method chains: `.any("employees.name").beginsWith("B")`.
    public static func any(_ path: String) -> KeyPathExpression { .any(path) }

    /// `ALL path`, for method chains: `.all("employees.name").like("?*")`.
    public static func all(_ path: String) -> KeyPathExpression { .all(path) }

    /// `NONE path`, for method chains: `.none("employees.name").contains("x")`.
    public static func none(_ path: String) -> KeyPathExpression { .none(path) }
}
