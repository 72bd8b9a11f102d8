import Foundation

/// Checks one comparison against the model.
struct PredicateValidator {
    let entity: EntityDescription
    let model: ObjectModel
    let comparison: PredicateComparison

    /// One side of the comparison, as far as the model tells.
    private struct Side {
        /// `nil` when any kind will do (`NULL`, a variable).
        var kinds: [PredicateValueKind?]
        var keyPath: PredicateModelKeyPath?
        var isMany: Bool
        var isList: Bool
    }

    func validate() throws {
        let left = try side(comparison.lhs)
        let right = try side(comparison.rhs)
        try checkQuantifier(left)
        if right.isMany && comparison.op != .in {
            throw mismatch(
                "'\(comparison.rhs)' leads through a to-many relationship and can only be the right side of IN",
                keyPath: right.keyPath)
        }
        if right.isList && comparison.op != .in && comparison.op != .between {
            throw mismatch("a list can only be the right side of IN or BETWEEN", keyPath: left.keyPath)
        }
        if comparison.op == .between, right.isList, right.kinds.count != 2 {
            throw mismatch("BETWEEN needs two bounds {lower, upper}", keyPath: left.keyPath)
        }
        try checkKinds(left, right)
        if comparison.op == .matches, case .constant(.string(let pattern)) = comparison.rhs {
            do {
                _ = try NSRegularExpression(pattern: pattern)
            } catch {
                throw StrataError(
                    .invalidArgument, "'\(pattern)' is not a valid regular expression for MATCHES",
                    context: ["entity": entity.name, "pattern": pattern])
            }
        }
    }

    private func checkQuantifier(_ left: Side) throws {
        switch comparison.quantifier {
        case .direct:
            if left.isMany, let keyPath = left.keyPath {
                throw mismatch(
                    "the key path '\(keyPath.path)' leads through the to-many relationship \(keyPath.toManyRelationship ?? "")"
                        + ": use ANY, ALL, NONE or @count",
                    keyPath: keyPath)
            }
        case .any, .all, .none:
            guard left.isMany else {
                throw mismatch(
                    "\(comparison.quantifier.rawValue) needs a key path through a to-many relationship, and '\(comparison.lhs)' is not one",
                    keyPath: left.keyPath)
            }
        }
    }

    private func checkKinds(_ left: Side, _ right: Side) throws {
        let op = comparison.op
        for leftKind in left.kinds {
            for rightKind in right.kinds {
                guard let leftKind, let rightKind else {
                    // NULL compares with everything by equality; ordering or matching
                    // against NULL is merely false, which is not an error either.
                    continue
                }
                if op.isStringOperator, leftKind != .string || rightKind != .string {
                    throw mismatch("\(op.rawValue) compares strings, not \(describe(leftKind, left)) with \(describe(rightKind, right))", keyPath: left.keyPath ?? right.keyPath)
                }
                if leftKind == .object || rightKind == .object {
                    let identity: Set<PredicateOperator> = [.equalTo, .notEqualTo, .in]
                    guard leftKind == rightKind, identity.contains(op) else {
                        throw mismatch("a relationship can only be compared with nil or an object (==, !=, IN)",
                                       keyPath: left.keyPath ?? right.keyPath)
                    }
                    continue
                }
                if leftKind != rightKind {
                    throw mismatch("\(describe(leftKind, left)) cannot be compared with \(describe(rightKind, right))", keyPath: left.keyPath ?? right.keyPath)
                }
            }
        }
    }

    private func describe(_ kind: PredicateValueKind, _ side: Side) -> String {
        if let keyPath = side.keyPath {
            switch keyPath.terminal {
            case .attribute(let attribute):
                return "\(keyPath.terminalEntityName).\(attribute.name) (\(attribute.type.rawValue))"
            case .relationship(let relationship):
                return "the relationship \(keyPath.terminalEntityName).\(relationship.name)"
            }
        }
        return "a \(kind.rawValue)"
    }

    private func side(_ expression: PredicateExpression) throws -> Side {
        switch expression {
        case .constant(let value):
            return Side(kinds: [PredicateValueKind(value)], keyPath: nil, isMany: false, isList: false)
        case .variable:
            return Side(kinds: [nil], keyPath: nil, isMany: false, isList: false)
        case .object:
            return Side(kinds: [.object], keyPath: nil, isMany: false, isList: false)
        case .list(let elements):
            var kinds: [PredicateValueKind?] = []
            for element in elements {
                let inner = try side(element)
                if inner.isMany || inner.isList {
                    throw mismatch("a list element must be a single value, not '\(element)'", keyPath: inner.keyPath)
                }
                kinds += inner.kinds
            }
            return Side(kinds: kinds, keyPath: nil, isMany: false, isList: true)
        case .keyPath(let path):
            let keyPath = try PredicateModelKeyPath.resolve(path, from: entity, in: model)
            let kind: PredicateValueKind = switch keyPath.terminal {
            case .attribute(let attribute): PredicateValueKind(attribute.type)
            case .relationship: .object
            }
            return Side(kinds: [kind], keyPath: keyPath, isMany: keyPath.isMany, isList: false)
        case .count(let path):
            let keyPath = try PredicateModelKeyPath.resolve(path, from: entity, in: model)
            guard keyPath.isMany else {
                throw mismatch("@count needs a to-many key path, and '\(path)' is not one", keyPath: keyPath)
            }
            return Side(kinds: [.number], keyPath: nil, isMany: false, isList: false)
        }
    }

    private func mismatch(_ reason: String, keyPath: PredicateModelKeyPath?) -> StrataError {
        var context = ["entity": entity.name, "predicate": comparison.description]
        if let keyPath { context["keyPath"] = keyPath.path }
        return StrataError(.typeMismatch, "\(entity.name): in '\(comparison)', \(reason)", context: context)
    }
}
