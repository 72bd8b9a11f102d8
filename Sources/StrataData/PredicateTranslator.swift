import Foundation

/// Translates Foundation's `#Predicate` expression tree (`PredicateExpressions.*`) into
/// Strata's ``Strata/Predicate``, so the store's indexes and planner judge typed fetches.
///
/// Supported: `==`, `!=`, `<`, `<=`, `>`, `>=` between a property and a value (or two
/// properties); `&&`, `||`, `!`; optional chaining through to-one relationships
/// (`$0.department?.name == "Sales"`); `String.contains(_:)` and `starts(with:)`;
/// `contains(where:)` on a to-many relationship with one condition, or conditions
/// joined by `||`; `[values].contains($0.property)`; `!= nil` and `== nil`. Anything
/// else is refused with `untranslatablePredicate` naming the part: the store never
/// falls back to judging every object in memory.
struct PredicateTranslator {
    let schema: Schema
    let entity: String

    /// Where a predicate variable points: the fetched object (empty prefix), or the
    /// elements of a to-many (`employees`, judged with ANY).
    struct Scope {
        var prefixes: [PredicateExpressions.VariableID: String] = [:]
        var quantified: Set<PredicateExpressions.VariableID> = []
    }

    func translate<T>(_ predicate: Foundation.Predicate<T>) throws -> Strata.Predicate {
        var scope = Scope()
        scope.prefixes[predicate.variable.key] = ""
        return try condition(predicate.expression, scope)
    }

    func condition(_ expression: Any, _ scope: Scope) throws -> Strata.Predicate {
        guard let translatable = expression as? any TranslatableCondition else {
            throw refusal(expression, "it is not a condition Strata can run in the store")
        }
        return try translatable.strataCondition(self, scope)
    }

    func operand(_ expression: Any, _ scope: Scope) throws -> Operand {
        guard let translatable = expression as? any TranslatableOperand else {
            throw refusal(expression, "it is neither a stored property nor a value")
        }
        return try translatable.strataOperand(self, scope)
    }

    /// A comparison of two operands, with the operator flipped when the value is on the left.
    func compare(_ lhs: Operand, _ op: PredicateOperator, _ rhs: Operand, part: Any) throws -> Strata.Predicate {
        switch (lhs, rhs) {
        case (.property(let path, let quantified), .value(let value)):
            return .comparison(PredicateComparison(.keyPath(path), op, .constant(value), quantifier: quantified ? .any : .direct))
        case (.value(let value), .property(let path, let quantified)):
            return .comparison(PredicateComparison(.keyPath(path), op.flipped, .constant(value), quantifier: quantified ? .any : .direct))
        case (.property(let left, let quantified), .property(let right, _)):
            return .comparison(PredicateComparison(.keyPath(left), op, .keyPath(right), quantifier: quantified ? .any : .direct))
        case (.value, .value):
            throw refusal(part, "it compares two values and no property")
        }
    }

    func refusal(_ part: Any, _ reason: String) -> StrataError {
        let full = "\(type(of: part))"
        let short = full.split(separator: "<").first.map(String.init) ?? full
        return StrataError(
            .untranslatablePredicate,
            "#Predicate on \(entity): \(short) cannot run in the store (\(reason)). Strata runs comparisons, &&, ||, !, optional chaining through to-one relationships, String contains/starts(with:), contains(where:) on to-many relationships and == nil / != nil; it never filters the whole store in memory",
            context: ["entity": entity, "part": full])
    }

    func name(of keyPath: AnyKeyPath, part: Any) throws -> String {
        if let name = schema.keyPathNames[keyPath] { return name }
        throw refusal(part, "\(keyPath) is not a persisted property (computed, @Transient, or a member of a value)")
    }
}

/// One side of a comparison: a property path (quantified when it ranges over a
/// to-many's elements) or a constant.
enum Operand {
    case property(String, quantified: Bool)
    case value(Value)
}

extension PredicateOperator {
    /// The operator with its sides swapped: `5 < x` is `x > 5`.
    var flipped: PredicateOperator {
        switch self {
        case .lessThan: .greaterThan
        case .lessThanOrEqualTo: .greaterThanOrEqualTo
        case .greaterThan: .lessThan
        case .greaterThanOrEqualTo: .lessThanOrEqualTo
        default: self
        }
    }
}

/// A `PredicateExpressions` node that is a condition (a Bool) the store can judge.
protocol TranslatableCondition {
    func strataCondition(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Strata.Predicate
}

/// A `PredicateExpressions` node that is a property path or a value.
protocol TranslatableOperand {
    func strataOperand(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Operand
}
