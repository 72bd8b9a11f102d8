extension Predicate {
    /// The top-level `AND`-ed conditions an index on a single attribute can serve:
    /// `key == constant`, `key IN {constants}`, `key <, <=, >, >= constant` (either
    /// side may be the key) and `key BETWEEN {lower, upper}`.
    ///
    /// Only plain keys qualify, not key paths through relationships; only constants,
    /// so substitute `$variables` first; and not comparisons with `[c]`/`[d]` folding or
    /// a quantifier, which an index of raw values cannot answer. Everything under an
    /// `OR` or a `NOT` is left out. The predicate as a whole must still be evaluated
    /// (or the conditions' `IndexableCondition.source` operands removed from it).
    ///
    /// ```swift
    /// let predicate = try Predicate(format: "department.name == 'R&D' AND age BETWEEN {30, 40}")
    /// predicate.indexableConditions().map(\.key)   // ["age"]
    /// ```
    package func indexableConditions() -> [IndexableCondition] {
        switch self {
        case .and(let operands):
            return operands.flatMap { $0.indexableConditions() }
        case .comparison(let comparison):
            return comparison.indexableCondition(source: self).map { [$0] } ?? []
        case .truePredicate, .falsePredicate, .or, .not:
            return []
        }
    }
}

extension PredicateComparison {
    func indexableCondition(source: Predicate) -> IndexableCondition? {
        guard quantifier == .direct, options.isEmpty else { return nil }
        var op = op
        var key: String
        var constant: PredicateExpression
        if case .keyPath(let path) = lhs {
            key = path
            constant = rhs
        } else if case .keyPath(let path) = rhs, case .constant = lhs {
            // `18 <= age` is `age >= 18`.
            key = path
            constant = lhs
            switch op {
            case .lessThan: op = .greaterThan
            case .lessThanOrEqualTo: op = .greaterThanOrEqualTo
            case .greaterThan: op = .lessThan
            case .greaterThanOrEqualTo: op = .lessThanOrEqualTo
            case .equalTo: break
            default: return nil
            }
        } else {
            return nil
        }
        // Its bytes, not `contains(".")`: with Foundation imported that is a substring
        // search through NSString.
        guard !key.utf8.contains(UInt8(ascii: ".")) else { return nil }

        func bound(_ inclusive: Bool) -> IndexableCondition.Bound? {
            guard case .constant(let value) = constant, !value.isNull else { return nil }
            return IndexableCondition.Bound(value, inclusive: inclusive)
        }
        let kind: IndexableCondition.Kind
        switch op {
        case .equalTo:
            guard case .constant(let value) = constant else { return nil }
            kind = .equalTo(value)
        case .in:
            guard case .list(let elements) = constant else { return nil }
            var values: [Value] = []
            for element in elements {
                guard case .constant(let value) = element else { return nil }
                values.append(value)
            }
            kind = .oneOf(values)
        case .lessThan, .lessThanOrEqualTo:
            guard let upper = bound(op == .lessThanOrEqualTo) else { return nil }
            kind = .range(lower: nil, upper: upper)
        case .greaterThan, .greaterThanOrEqualTo:
            guard let lower = bound(op == .greaterThanOrEqualTo) else { return nil }
            kind = .range(lower: lower, upper: nil)
        case .between:
            guard case .list(let bounds) = constant, bounds.count == 2,
                case .constant(let lower) = bounds[0], case .constant(let upper) = bounds[1],
                !lower.isNull, !upper.isNull
            else { return nil }
            kind = .range(lower: .init(lower, inclusive: true), upper: .init(upper, inclusive: true))
        default:
            return nil
        }
        return IndexableCondition(key: key, kind: kind, source: source)
    }
}
