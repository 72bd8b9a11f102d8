/// Follows a key path from a subject, key by key, through to-one and to-many
/// relationships, as key-value coding's `value(forKeyPath:)` does.
enum PredicateKeyPathWalk {
    /// The operands at the end of the key path: a single one, or many when the
    /// path passes through a to-many relationship.
    ///
    /// - Throws: `StrataError` `.unknownKeyPath` when the path continues past an
    ///   attribute, or whatever the subject throws for an unknown key.
    static func resolve(_ components: [String], of subject: any PredicateSubject, path: String) throws -> PredicateResolvedExpression {
        var frontier: [any PredicateSubject] = [subject]
        var isMany = false
        var results: [PredicateOperand] = []
        for (position, key) in components.enumerated() {
            let isLast = position == components.count - 1
            var next: [any PredicateSubject] = []
            for object in frontier {
                switch try object.member(forKey: key) {
                case .value(let value):
                    guard isLast else {
                        throw StrataError(
                            .unknownKeyPath,
                            "The key path '\(path)' continues past the attribute '\(key)'",
                            context: ["keyPath": path]
                        )
                    }
                    results.append(.value(value))
                case .toOne(let destination):
                    if isLast {
                        results.append(destination.map { .object($0.predicateObjectID) } ?? .value(.null))
                    } else if let destination {
                        next.append(destination)
                    } else {
                        // A nil to-one on the way yields nil, as in key-value coding.
                        results.append(.value(.null))
                    }
                case .toMany(let destinations):
                    isMany = true
                    if isLast {
                        results.append(contentsOf: destinations.map { PredicateOperand.object($0.predicateObjectID) })
                    } else {
                        next.append(contentsOf: destinations)
                    }
                }
            }
            frontier = next
        }
        if isMany { return .many(results) }
        return .single(results.first ?? .value(.null))
    }
}
