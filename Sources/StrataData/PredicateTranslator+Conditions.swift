import Foundation

extension PredicateExpressions.Conjunction: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        if !scope.quantified.isEmpty {
            throw translator.refusal(self, "&& inside contains(where:) would not mean 'one element matches both': Strata judges each condition over any element. Use two contains(where:) joined by && if that is what you mean")
        }
        return try translator.condition(lhs, scope) && translator.condition(rhs, scope)
    }
}

extension PredicateExpressions.Disjunction: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        try translator.condition(lhs, scope) || translator.condition(rhs, scope)
    }
}

extension PredicateExpressions.Negation: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        if !scope.quantified.isEmpty {
            throw translator.refusal(self, "! inside contains(where:) cannot be judged element by element; negate the contains(where:) or the comparison operator instead")
        }
        return !(try translator.condition(wrapped, scope))
    }
}

extension PredicateExpressions.Equal: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        try translator.compare(translator.operand(lhs, scope), .equalTo, translator.operand(rhs, scope), part: self)
    }
}

extension PredicateExpressions.NotEqual: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        try translator.compare(translator.operand(lhs, scope), .notEqualTo, translator.operand(rhs, scope), part: self)
    }
}

extension PredicateExpressions.Comparison: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        let op: PredicateOperator = switch self.op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqualTo
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqualTo
        }
        return try translator.compare(translator.operand(lhs, scope), op, translator.operand(rhs, scope), part: self)
    }
}

extension PredicateExpressions.SequenceStartsWith: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        try translator.stringCondition(.beginsWith, base, prefix, scope, part: self)
    }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        try translator.stringCondition(.contains, base, other, scope, part: self)
    }
}

/// `[values].contains($0.property)`: IN.
extension PredicateExpressions.SequenceContains: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        guard case .property(let path, let quantified) = try translator.operand(element, scope) else {
            throw translator.refusal(self, "contains(_:) is run in the store only as [values].contains(property)")
        }
        guard let values = sequence as? any ConstantList else {
            throw translator.refusal(self, "contains(_:) is run in the store only on a list of values")
        }
        let list = try values.values(translator, part: self).map(PredicateExpression.constant)
        return .comparison(PredicateComparison(.keyPath(path), .in, .list(list), quantifier: quantified ? .any : .direct))
    }
}

/// `$0.employees.contains(where: { … })`: ANY over the to-many's elements.
extension PredicateExpressions.SequenceContainsWhere: TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        guard scope.quantified.isEmpty else {
            throw translator.refusal(self, "contains(where:) inside contains(where:) cannot be judged in the store")
        }
        guard case .property(let path, _) = try translator.operand(sequence, scope) else {
            throw translator.refusal(self, "contains(where:) is run in the store on a to-many relationship only")
        }
        var inner = scope
        inner.prefixes[variable.key] = path
        inner.quantified.insert(variable.key)
        return try translator.condition(test, inner)
    }
}

extension PredicateTranslator {
    func stringCondition(_ op: PredicateOperator, _ base: Any, _ argument: Any, _ scope: Scope, part: Any) throws -> Strata.Predicate {
        guard case .property(let path, let quantified) = try operand(base, scope),
              case .value(let value) = try operand(argument, scope) else {
            throw refusal(part, "it is run in the store as property.\(op == .contains ? "contains" : "starts(with:)")(value) only")
        }
        guard case .string = value else { throw refusal(part, "the argument is not a String") }
        return .comparison(PredicateComparison(.keyPath(path), op, .constant(value), quantifier: quantified ? .any : .direct))
    }
}

/// A constant list, for `IN`.
protocol ConstantList {
    func values(_ translator: PredicateTranslator, part: Any) throws -> [Value]
}

extension PredicateExpressions.Value: ConstantList where Output: Sequence {
    func values(_ translator: PredicateTranslator, part: Any) throws -> [Value] {
        try value.map { element in
            guard case .value(let converted) = try translator.constant(element, part: part) else { return .null }
            return converted
        }
    }
}

/// `$0.isActive`: a Bool property as a condition.
extension PredicateExpressions.KeyPath: TranslatableCondition where Output == Bool {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate {
        try translator.compare(strataOperand(translator, scope), .equalTo, .value(.bool(true)), part: self)
    }
}
