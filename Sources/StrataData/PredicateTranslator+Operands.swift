import Foundation

extension PredicateExpressions.Variable: TranslatableOperand {
    func strataOperand(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Operand {
        guard let prefix = scope.prefixes[key], !prefix.isEmpty else {
            throw translator.refusal(self, "a model itself cannot be compared; compare one of its properties")
        }
        return .property(prefix, quantified: scope.quantified.contains(key))
    }
}

extension PredicateExpressions.KeyPath: TranslatableOperand {
    func strataOperand(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Operand {
        let name = try translator.name(of: keyPath, part: self)
        if let variable = root as? any VariableReference, let prefix = scope.prefixes[variable.variableKey] {
            return .property(prefix.isEmpty ? name : prefix + "." + name, quantified: scope.quantified.contains(variable.variableKey))
        }
        guard case .property(let path, let quantified) = try translator.operand(root, scope) else {
            throw translator.refusal(self, "a key path on a value")
        }
        return .property(path + "." + name, quantified: quantified)
    }
}

/// `$0.department?.name`: the path through the to-one, nil when the relationship is.
extension PredicateExpressions.OptionalFlatMap: TranslatableOperand {
    func strataOperand(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Operand {
        guard case .property(let path, let quantified) = try translator.operand(wrapped, scope) else {
            throw translator.refusal(self, "optional chaining is run in the store through to-one relationships only")
        }
        var inner = scope
        inner.prefixes[variable.key] = path
        if quantified { inner.quantified.insert(variable.key) }
        return try translator.operand(transform, inner)
    }
}

extension PredicateExpressions.Value: TranslatableOperand {
    func strataOperand(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Operand {
        try translator.constant(value, part: self)
    }
}

extension PredicateExpressions.NilLiteral: TranslatableOperand {
    func strataOperand(_ translator: PredicateTranslator, _ scope: PredicateTranslator.Scope) throws -> Operand {
        .value(.null)
    }
}

/// A `Variable`, whatever its output type.
protocol VariableReference {
    var variableKey: PredicateExpressions.VariableID { get }
}

extension PredicateExpressions.Variable: VariableReference {
    var variableKey: PredicateExpressions.VariableID { key }
}

extension PredicateTranslator {
    /// A captured Swift value as a store value.
    func constant(_ value: Any, part: Any) throws -> Operand {
        if let optional = value as? any OptionalType, optional.isNone { return .value(.null) }
        if let attribute = value as? any PersistentAttribute { return .value(attribute.persistentValue) }
        if value is any PersistentModel {
            throw refusal(part, "it compares with a model instance; compare a property of it, or its persistentModelID outside the predicate")
        }
        if value is any Encodable {
            do {
                return .value(try CompositeCoding.encode(value))
            } catch {
                throw refusal(part, "the value \(type(of: value)) does not encode: \(error)")
            }
        }
        throw refusal(part, "a value of \(type(of: value)) cannot be stored or compared")
    }
}
