extension ObjectModel {
    /// Checks names, duplicates, parents and inheritance cycles: everything that must
    /// hold before the inheritance tree can be walked.
    static func validateNamesAndParents(_ entities: [EntityDescription]) throws {
        var seen = Set<String>()
        for entity in entities {
            if let problem = ModelName.problem(with: entity.name, kind: "entity") {
                throw ModelValidationError.entity(entity.name, problem)
            }
            guard seen.insert(entity.name).inserted else {
                throw ModelValidationError.entity(entity.name, "the model declares this entity name twice")
            }
            if let renamed = entity.renamingIdentifier,
               let problem = ModelName.problem(with: renamed, kind: "renaming identifier") {
                throw ModelValidationError.entity(entity.name, problem)
            }
            var propertyNames = Set<String>()
            for property in entity.declaredProperties {
                if let problem = ModelName.problem(with: property.name, kind: "property") {
                    throw ModelValidationError.property(entity.name, property.name, problem)
                }
                guard propertyNames.insert(property.name).inserted else {
                    throw ModelValidationError.property(
                        entity.name, property.name, "the entity declares this property name twice")
                }
            }
        }
        let parents = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.parentName) })
        for entity in entities {
            guard let parent = entity.parentName else { continue }
            guard parents[parent] != nil else {
                throw ModelValidationError.entity(
                    entity.name, "the parent entity '\(parent)' is not in the model")
            }
            // Walk up from the entity; meeting it again, or any entity twice, is a cycle.
            var chain = [entity.name]
            var next: String? = parent
            while let current = next {
                if chain.contains(current) {
                    throw ModelValidationError.entity(
                        entity.name,
                        "inheritance cycle: " + (chain + [current]).joined(separator: " → "))
                }
                chain.append(current)
                next = parents[current] ?? nil
            }
        }
    }

    /// Sorts the entities by name and fills in each one's inherited properties,
    /// ancestors and sub-entities. Expects ``validateNamesAndParents(_:)`` to have passed.
    ///
    /// - Throws: `invalidModel` when a declared property reuses an inherited name.
    static func resolveInheritance(_ entities: [EntityDescription]) throws -> [EntityDescription] {
        var sorted = entities.sorted { ModelName.precedes($0.name, $1.name) }
        let byName = Dictionary(uniqueKeysWithValues: sorted.map { ($0.name, $0) })
        var children: [String: [String]] = [:]
        for entity in sorted {
            if let parent = entity.parentName { children[parent, default: []].append(entity.name) }
        }
        for index in sorted.indices {
            var ancestors: [String] = []
            var next = sorted[index].parentName
            while let current = next, let ancestor = byName[current] {
                ancestors.append(current)
                next = ancestor.parentName
            }
            var inherited: [PropertyDescription] = []
            var inheritedFrom: [String: String] = [:]
            for ancestorName in ancestors.reversed() {
                for property in byName[ancestorName]?.declaredProperties ?? [] {
                    inherited.append(property)
                    inheritedFrom[property.name] = ancestorName
                }
            }
            for property in sorted[index].declaredProperties {
                if let owner = inheritedFrom[property.name] {
                    throw ModelValidationError.property(
                        sorted[index].name, property.name,
                        "clashes with the property of the same name inherited from '\(owner)'")
                }
            }
            sorted[index].resolve(inherited: inherited)
            sorted[index].ancestorNames = ancestors
            sorted[index].subentityNames = (children[sorted[index].name] ?? []).sorted(by: ModelName.precedes)
            sorted[index].allSubentityNames = descendants(of: sorted[index].name, children: children)
        }
        return sorted
    }

    private static func descendants(of name: String, children: [String: [String]]) -> [String] {
        var result: [String] = []
        var pending = children[name] ?? []
        while let next = pending.popLast() {
            result.append(next)
            pending.append(contentsOf: children[next] ?? [])
        }
        return result.sorted(by: ModelName.precedes)
    }
}
