extension Predicate {
    /// The predicate with every `$variable` replaced by its binding, as
    /// `NSPredicate.withSubstitutionVariables(_:)` does. Bindings nobody uses are ignored.
    ///
    /// ```swift
    /// let template = try Predicate(format: "age >= $minimum AND name IN $names")
    /// let adults = try template.withSubstitutionVariables(["minimum": 18, "names": ["Ann", "Bo"]])
    /// ```
    ///
    /// - Parameter variables: values by variable name, without the `$`; an array binds a list.
    /// - Throws: `StrataError` `.invalidArgument` naming the first variable that has no
    ///   binding (context key `variable`).
    public func withSubstitutionVariables(_ variables: [String: any PredicateArgument]) throws -> Predicate {
        switch self {
        case .truePredicate, .falsePredicate:
            return self
        case .not(let operand):
            return .not(try operand.withSubstitutionVariables(variables))
        case .and(let operands):
            return .and(try operands.map { try $0.withSubstitutionVariables(variables) })
        case .or(let operands):
            return .or(try operands.map { try $0.withSubstitutionVariables(variables) })
        case .comparison(var comparison):
            comparison.lhs = try comparison.lhs.substituting(variables)
            comparison.rhs = try comparison.rhs.substituting(variables)
            return .comparison(comparison)
        }
    }

    /// The predicate with its `$variables` replaced by `Value`s.
    ///
    /// - Throws: as `withSubstitutionVariables(_:)` taking a dictionary.
    public func withSubstitutionVariables(_ variables: [String: Value]) throws -> Predicate {
        try withSubstitutionVariables(variables.mapValues { $0 as any PredicateArgument })
    }

    /// The names of the `$variables` the predicate uses, without the `$`, sorted.
    public var variableNames: [String] {
        var names: Set<String> = []
        forEachComparison { comparison in
            for expression in [comparison.lhs, comparison.rhs] { expression.collectVariables(into: &names) }
        }
        return names.sorted()
    }

    /// Calls `body` with every comparison, depth first.
    func forEachComparison(_ body: (PredicateComparison) throws -> Void) rethrows {
        switch self {
        case .truePredicate, .falsePredicate: return
        case .not(let operand): try operand.forEachComparison(body)
        case .and(let operands), .or(let operands): for operand in operands { try operand.forEachComparison(body) }
        case .comparison(let comparison): try body(comparison)
        }
    }
}

extension PredicateExpression {
    func substituting(_ variables: [String: any PredicateArgument]) throws -> PredicateExpression {
        switch self {
        case .constant, .keyPath, .count, .object:
            return self
        case .variable(let name):
            guard let binding = variables[name] else { throw PredicateVariables.unboundError(name) }
            return binding.predicateExpression
        case .list(let elements):
            return .list(try elements.map { try $0.substituting(variables) })
        }
    }

    func collectVariables(into names: inout Set<String>) {
        switch self {
        case .variable(let name): names.insert(name)
        case .list(let elements): for element in elements { element.collectVariables(into: &names) }
        case .constant, .keyPath, .count, .object: break
        }
    }
}
