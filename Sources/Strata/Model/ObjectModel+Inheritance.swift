extension ObjectModel {
    /// How many entities a chain of inheritance may hold, the entity itself included.
    /// Each entity stores its ancestors and inherits their properties, so a chain of
    /// n costs n² in time and memory; real models stay under ten levels (Core Data's
    /// editor shows one line per level). 100 is far above any of them and keeps a
    /// hostile model file of 100,000 levels an error, not minutes of work.
    package static let maximumInheritanceDepth = 100

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
        // Depth of each entity whose chain up to a root is known to be sound: each
        // entity is walked once, up to the first one already measured, so the check is
        // linear in the number of entities whatever the shape of the tree.
        var depths: [String: Int] = [:]
        depths.reserveCapacity(entities.count)
        for entity in entities where depths[entity.name] == nil {
            // The unmeasured part of the chain, from the entity upwards, with a set
            // beside it: a name met twice in it is a cycle.
            var chain: [String] = []
            var onChain = Set<String>()
            var next: String? = entity.name
            var base = 0
            while let current = next {
                if let known = depths[current] {
                    base = known
                    break
                }
                guard onChain.insert(current).inserted else {
                    let cycle = chain[(chain.firstIndex(of: current) ?? 0)...] + [current]
                    throw ModelValidationError.entity(current, "inheritance cycle: " + cycle.joined(separator: " → "))
                }
                chain.append(current)
                guard chain.count + base <= maximumInheritanceDepth else {
                    throw StrataError(
                        .limitExceeded,
                        "Entity '\(entity.name)' has more than \(maximumInheritanceDepth) levels of parent entities",
                        context: ["entity": entity.name, "limit": "inheritanceDepth", "maximum": String(maximumInheritanceDepth)])
                }
                guard let parent = parents[current] ?? nil else { break }
                guard parents[parent] != nil else {
                    throw ModelValidationError.entity(current, "the parent entity '\(parent)' is not in the model")
                }
                next = parent
            }
            for (offset, name) in chain.reversed().enumerated() { depths[name] = base + offset + 1 }
            guard let depth = depths[entity.name], depth <= maximumInheritanceDepth else {
                throw StrataError(
                    .limitExceeded,
                    "Entity '\(entity.name)' has more than \(maximumInheritanceDepth) levels of parent entities",
                    context: ["entity": entity.name, "limit": "inheritanceDepth", "maximum": String(maximumInheritanceDepth)])
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
