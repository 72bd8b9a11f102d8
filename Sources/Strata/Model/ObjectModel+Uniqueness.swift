extension ObjectModel {
    /// Folds a constraint of one attribute the entity declares into that attribute's
    /// `isUnique`, sorts the names of each compound constraint, and keeps each
    /// constraint once in name order: two spellings of one rule give one model, one
    /// hash and one JSON file.
    static func normalizeUniquenessConstraints(_ entities: [EntityDescription]) -> [EntityDescription] {
        entities.map { entity in
            guard !entity.uniquenessConstraints.isEmpty else { return entity }
            var entity = entity
            var declared = entity.declaredProperties
            var kept: [[String]] = []
            for constraint in entity.uniquenessConstraints {
                if constraint.count == 1, let position = declared.firstIndex(where: { $0.name == constraint[0] }),
                   case .attribute(var attribute) = declared[position], !attribute.isTransient {
                    attribute.isUnique = true
                    declared[position] = .attribute(attribute)
                    continue
                }
                kept.append(constraint.sorted { ModelName.precedes($0, $1) })
            }
            entity.declaredProperties = declared
            entity.uniquenessConstraints = kept.sorted { ModelName.precedes($0.joined(separator: ","), $1.joined(separator: ",")) }
            return entity
        }
    }

    /// Checks each entity's compound constraints against its resolved attributes.
    ///
    /// - Throws: `invalidModel` naming the entity: an empty constraint, a name that is
    ///   not a stored attribute of the entity (relationships and transient attributes
    ///   cannot be constrained), a name twice in one constraint, a constraint twice.
    static func validateUniquenessConstraints(_ entities: [EntityDescription]) throws {
        for entity in entities {
            var seen = Set<[String]>()
            for constraint in entity.uniquenessConstraints {
                let label = "(" + constraint.joined(separator: ", ") + ")"
                guard !constraint.isEmpty else {
                    throw ModelValidationError.entity(entity.name, "a uniqueness constraint names no attribute")
                }
                for name in constraint {
                    guard let attribute = entity.attributesByName[name] else {
                        let what = entity.relationshipsByName[name] != nil ? "is a relationship; only attributes can be" : "is not an attribute of the entity, so it cannot be"
                        throw ModelValidationError.entity(entity.name, "uniqueness constraint \(label): '\(name)' \(what) constrained")
                    }
                    guard !attribute.isTransient else {
                        throw ModelValidationError.entity(entity.name, "uniqueness constraint \(label): '\(name)' is transient and never stored")
                    }
                }
                guard Set(constraint).count == constraint.count else {
                    throw ModelValidationError.entity(entity.name, "uniqueness constraint \(label) names an attribute twice")
                }
                guard seen.insert(constraint).inserted else {
                    throw ModelValidationError.entity(entity.name, "declares the uniqueness constraint \(label) twice")
                }
            }
        }
    }

    /// Every uniqueness rule that binds objects of `entity`: its own unique attributes
    /// and compound constraints and those of its ancestors, each with the entity that
    /// declares it (whose objects and sub-entities' objects share one scope).
    func uniquenessRules(of entity: EntityDescription) -> [(declaring: String, attributes: [String], compound: Bool)] {
        var rules: [(declaring: String, attributes: [String], compound: Bool)] = []
        for name in entity.ancestorNames.reversed() + [entity.name] {
            guard let owner = self.entity(named: name) else { continue }
            for case .attribute(let attribute) in owner.declaredProperties where attribute.isUnique && !attribute.isTransient {
                rules.append((name, [attribute.name], false))
            }
            for constraint in owner.uniquenessConstraints { rules.append((name, constraint, true)) }
        }
        return rules
    }
}
