extension Predicate {
    /// Whether `subject` satisfies the predicate, with `NSPredicate`'s semantics.
    ///
    /// Numbers compare across int, double and decimal (and a bool as 0 or 1); dates by
    /// time; strings lexicographically by Unicode canonical ordering, after `[c]`/`[d]`
    /// folding. `nil == nil` is true; any ordering (`<`, `BETWEEN`…) with a `nil` side
    /// is false. A key path through a nil to-one relationship yields `nil`.
    ///
    /// ```swift
    /// // Row: the subject in PredicateSubject's example, answering "age".
    /// try Predicate(format: "age BETWEEN {18, 65}").evaluate(with: Row(age: 30))   // true
    /// ```
    ///
    /// - Throws: `StrataError` `.unknownKeyPath` for a key the subject does not have
    ///   or a key path that continues past an attribute; `.typeMismatch` when a
    ///   comparison cannot be made (ordering a string against a number, a string
    ///   operator on a non-string, a to-many key path without `ANY`/`ALL`/`NONE`);
    ///   `.invalidArgument` for a `$variable` never substituted or an invalid regular
    ///   expression.
    public func evaluate(with subject: some PredicateSubject) throws -> Bool {
        try evaluate(subject as any PredicateSubject)
    }

    func evaluate(_ subject: any PredicateSubject) throws -> Bool {
        switch self {
        case .truePredicate:
            return true
        case .falsePredicate:
            return false
        case .not(let operand):
            return try !operand.evaluate(subject)
        case .and(let operands):
            for operand in operands where try !operand.evaluate(subject) { return false }
            return true
        case .or(let operands):
            for operand in operands where try operand.evaluate(subject) { return true }
            return false
        case .comparison(let comparison):
            return try comparison.evaluate(subject)
        }
    }
}

extension PredicateComparison {
    func evaluate(_ subject: any PredicateSubject) throws -> Bool {
        try evaluate(left: try lhs.resolve(subject), right: try rhs.resolve(subject))
    }

    /// The comparison of two sides already resolved: what a compiled predicate
    /// (Fetch/CompiledPredicate.swift) calls with values read from a record, so both
    /// ways of judging share every rule and every error.
    func evaluate(left: PredicateResolvedExpression, right: PredicateResolvedExpression) throws -> Bool {
        let rightOperands = try rightSide(right)
        switch quantifier {
        case .direct:
            guard case .single(let operand) = left else {
                throw StrataError(
                    .typeMismatch,
                    "The key path '\(lhs)' leads through a to-many relationship: use ANY, ALL, NONE or @count",
                    context: ["keyPath": "\(lhs)"]
                )
            }
            return try test(operand, rightOperands)
        case .any:
            for operand in left.operands where try test(operand, rightOperands) { return true }
            return false
        case .all:
            for operand in left.operands where try !test(operand, rightOperands) { return false }
            return true
        case .none:
            for operand in left.operands where try test(operand, rightOperands) { return false }
            return true
        }
    }

    /// The right side as the operator needs it: a collection for `IN`, two bounds
    /// for `BETWEEN`, one operand otherwise.
    private func rightSide(_ right: PredicateResolvedExpression) throws -> [PredicateOperand] {
        switch op {
        case .in:
            return right.operands
        case .between:
            guard case .many(let bounds) = right, bounds.count == 2 else {
                throw StrataError(
                    .invalidArgument, "BETWEEN needs two bounds {lower, upper}, found \(rhs)", context: ["predicate": description])
            }
            return bounds
        default:
            guard case .single(let operand) = right else {
                throw StrataError(
                    .typeMismatch, "\(op.rawValue) needs a single value on its right, found \(rhs)", context: ["predicate": description])
            }
            return [operand]
        }
    }

    /// Compares one left operand with the right side.
    func test(_ left: PredicateOperand, _ right: [PredicateOperand]) throws -> Bool {
        switch op {
        case .in:
            return right.contains { PredicateValueComparison.equal(left, $0, options: options) }
        case .between:
            let lower = try PredicateValueComparison.order(left, right[0], options: options, context: self)
            let upper = try PredicateValueComparison.order(left, right[1], options: options, context: self)
            guard let lower, let upper else { return false }
            return lower != .orderedAscending && upper != .orderedDescending
        case .equalTo:
            return PredicateValueComparison.equal(left, right[0], options: options)
        case .notEqualTo:
            return !PredicateValueComparison.equal(left, right[0], options: options)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let order = try PredicateValueComparison.order(left, right[0], options: options, context: self) else { return false }
            switch op {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return try PredicateStringMatching.test(op, left, right[0], options: options, context: self)
        }
    }
}

extension PredicateExpression {
    /// A key path's components. Most are one attribute name: that one is not split,
    /// which a query judging every object would otherwise do for each of them.
    static func components(of path: String) -> [String] {
        path.utf8.contains(UInt8(ascii: ".")) ? path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) : [path]
    }

    /// Evaluates the expression against a subject.
    func resolve(_ subject: any PredicateSubject) throws -> PredicateResolvedExpression {
        switch self {
        case .constant(let value):
            return .single(.value(value))
        case .list(let elements):
            return .many(try elements.flatMap { try $0.resolve(subject).operands })
        case .variable(let name):
            throw PredicateVariables.unboundError(name)
        case .object(let id):
            return .single(.object(id))
        case .keyPath(let path):
            return try PredicateKeyPathWalk.resolve(Self.components(of: path), of: subject, path: path)
        case .count(let path):
            let resolved = try PredicateKeyPathWalk.resolve(Self.components(of: path), of: subject, path: path)
            switch resolved {
            case .many(let operands):
                return .single(.value(.int(Int64(operands.count(where: { !$0.isNull })))))
            case .single(let operand) where operand.isNull:
                // A nil to-one on the way: nothing to count.
                return .single(.value(.int(0)))
            case .single:
                throw StrataError(
                    .typeMismatch, "@count needs a to-many key path, and '\(path)' is not one", context: ["keyPath": path])
            }
        }
    }
}
