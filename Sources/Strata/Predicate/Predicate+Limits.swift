extension Predicate {
    /// How deeply a predicate may nest: parentheses, `NOT`s, `AND`/`OR` groups and
    /// `{…}` lists, counted together. The parser, validation and evaluation recurse
    /// once per level, so without a bound a hostile format string of 100,000 `(`
    /// overflows the stack and takes the whole process down. SQLite bounds its
    /// expression trees the same way and at the same depth (`SQLITE_MAX_EXPR_DEPTH`);
    /// no predicate a person writes comes near it.
    ///
    /// ```swift
    /// let deep = String(repeating: "(", count: 2_000) + "a == 1" + String(repeating: ")", count: 2_000)
    /// try Predicate(format: deep) // StrataError.Code.limitExceeded, context limit "predicateNestingDepth"
    /// ```
    public static let maximumNestingDepth = 1_000

    /// The error for a predicate nested deeper than ``maximumNestingDepth``.
    static func nestingLimitError(position: Int?) -> StrataError {
        var context = ["limit": "predicateNestingDepth", "maximum": String(maximumNestingDepth)]
        var message = "The predicate nests more than \(maximumNestingDepth) levels (parentheses, NOT, AND/OR groups and {…} lists)"
        if let position {
            context["position"] = String(position)
            message += " at position \(position)"
        }
        return StrataError(.limitExceeded, message, context: context)
    }

    /// Throws `.limitExceeded` when the predicate nests deeper than
    /// ``maximumNestingDepth``. Iterative, so a predicate built in code to any depth is
    /// measured without the recursion the limit guards against.
    func checkNestingDepth() throws {
        var pending: [(Predicate, Int)] = [(self, 0)]
        while let (predicate, depth) = pending.popLast() {
            guard depth <= Self.maximumNestingDepth else { throw Self.nestingLimitError(position: nil) }
            switch predicate {
            case .truePredicate, .falsePredicate: continue
            case .not(let operand): pending.append((operand, depth + 1))
            case .and(let operands), .or(let operands): pending.append(contentsOf: operands.map { ($0, depth + 1) })
            case .comparison(let comparison):
                for expression in [comparison.lhs, comparison.rhs] where expression.nestingDepth + depth > Self.maximumNestingDepth {
                    throw Self.nestingLimitError(position: nil)
                }
            }
        }
    }
}

extension PredicateExpression {
    /// How deeply `{…}` lists nest in this expression (0 for a plain value), measured
    /// without recursion.
    var nestingDepth: Int {
        var deepest = 0
        var pending: [(PredicateExpression, Int)] = [(self, 0)]
        while let (expression, depth) = pending.popLast() {
            deepest = max(deepest, depth)
            if case .list(let elements) = expression { pending.append(contentsOf: elements.map { ($0, depth + 1) }) }
        }
        return deepest
    }
}
