import StrataLog

/// Composes two chained mapping models (A → B, then B → C) into one (A → C).
struct MappingComposition {
    let first: MappingModel
    let second: MappingModel

    func composed() throws -> MappingModel {
        var mappings: [EntityMapping] = []
        var usedNames = Set<String>()
        var consumed = Set<String>()  // names of first-stage mappings some second-stage one continues
        for later in second.entityMappings {
            guard let intermediate = later.sourceEntityName else {
                append(later, to: &mappings, names: &usedNames)
                continue
            }
            let earlier = first.entityMappings.filter { $0.destinationEntityName == intermediate }
            for before in earlier {
                consumed.insert(before.name)
                if let mapping = try compose(before, later) { append(mapping, to: &mappings, names: &usedNames) }
            }
        }
        // Objects the first stage made but the second does not read are gone after both.
        for before in first.entityMappings where !consumed.contains(before.name) {
            guard let sourceName = before.sourceEntityName else { continue }
            if before.destinationEntityName != nil, before.hasCustomPolicy { throw notComposable(before, "has a policy") }
            append(EntityMapping(name: "Remove\(sourceName)", kind: .remove,
                                 sourceEntityName: sourceName, destinationEntityName: nil),
                   to: &mappings, names: &usedNames)
        }
        return MappingModel(
            sourceModelHash: first.sourceModelHash, destinationModelHash: second.destinationModelHash,
            entityMappings: mappings)
    }

    /// The mapping doing `before` then `later`, or nil when nothing reaches the end.
    private func compose(_ before: EntityMapping, _ later: EntityMapping) throws -> EntityMapping? {
        guard let sourceName = before.sourceEntityName else {
            // The intermediate objects were all new: the final entity is added too.
            guard let destination = later.destinationEntityName else { return nil }
            return EntityMapping(
                name: "Add\(destination)", kind: .add, sourceEntityName: nil, destinationEntityName: destination,
                attributeMappings: later.attributeMappings, relationshipMappings: later.relationshipMappings,
                userInfo: later.userInfo)
        }
        if before.hasCustomPolicy || before.kind == .custom { throw notComposable(before, "has a policy") }
        guard let destination = later.destinationEntityName else {
            return EntityMapping(name: "Remove\(sourceName)", kind: .remove,
                                 sourceEntityName: sourceName, destinationEntityName: nil)
        }
        if later.hasCustomPolicy || later.kind == .custom { throw notComposable(later, "has a policy") }
        if later.sourcePredicate != nil {
            throw notComposable(later, "filters the intermediate objects with a predicate")
        }
        let attributes = try later.attributeMappings.map {
            try compose($0, through: before.attributeMappings, in: later, relationship: false)
        }
        let relationships = try later.relationshipMappings.map {
            try compose($0, through: before.relationshipMappings, in: later, relationship: true)
        }
        let kind: EntityMappingKind = before.kind == .copy && later.kind == .copy ? .copy : .transform
        return EntityMapping(
            name: "\(sourceName)To\(destination)", kind: kind,
            sourceEntityName: sourceName, destinationEntityName: destination,
            attributeMappings: attributes, relationshipMappings: relationships,
            sourcePredicate: before.sourcePredicate,
            userInfo: before.userInfo.merging(later.userInfo) { $1 })
    }

    /// Rewrites a second-stage property mapping over the first stage's source object.
    private func compose(
        _ mapping: PropertyMapping, through earlier: [PropertyMapping], in later: EntityMapping,
        relationship: Bool
    ) throws -> PropertyMapping {
        switch mapping.valueExpression {
        case .constant, .defaultValue:
            return mapping
        case .closure:
            throw notComposable(later, "computes '\(mapping.name)' with a closure over the intermediate object")
        case .destinationInstances(let path, _):
            throw notComposable(later, "maps '\(path)' through a named entity mapping of its own model")
        case .keyPath(let path):
            guard !path.contains(".") else {
                throw notComposable(later, "reads '\(path)' through a relationship of the intermediate object")
            }
            guard let inner = earlier.first(where: { $0.name == path }) else {
                throw notComposable(later, "reads '\(path)', which the earlier mapping does not fill")
            }
            // An intermediate attribute's default is already in `inner.transforms` as
            // what nil becomes, so the final mapping starts from no value; a relationship
            // the first stage left empty stays empty.
            var start = inner.valueExpression
            if case .defaultValue = start, !relationship { start = .constant(.null) }
            return PropertyMapping(name: mapping.name, value: start, transforms: inner.transforms + mapping.transforms)
        }
    }

    private func append(_ mapping: EntityMapping, to mappings: inout [EntityMapping], names: inout Set<String>) {
        var mapping = mapping
        var candidate = mapping.name
        var suffix = 2
        while names.contains(candidate) {
            candidate = "\(mapping.name)\(suffix)"
            suffix += 1
        }
        mapping.name = candidate
        names.insert(candidate)
        mappings.append(mapping)
    }

    private func notComposable(_ mapping: EntityMapping, _ reason: String) -> StrataError {
        StrataError(
            .migrationFailed,
            "entity mapping '\(mapping.name)' \(reason), so it cannot be composed with another mapping model; "
                + "run the mapping models one after the other",
            context: ["entityMapping": mapping.name])
    }
}
