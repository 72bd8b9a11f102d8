import StrataLog

extension MappingModel {
    /// Infers the mapping for a lightweight migration, as Core Data's
    /// `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`.
    ///
    /// Entities and properties are matched by the destination's `renamingIdentifier`
    /// (the name in the source model), else by name. Inferred: added and removed
    /// attributes, relationships and entities; a new non-optional attribute with a
    /// default; optional → non-optional with a default (nil becomes the default, recorded
    /// as ``MappingTransform/replaceNil(with:)``); non-optional → optional; renames of
    /// entities, attributes and relationships; to-one → to-many; lossless type changes
    /// (``MappingTransform/isLossless(from:to:)``); properties moving between an entity and
    /// its sub-entities, and a new parent entity (each entity's objects keep every
    /// property they had, inherited or not).
    ///
    /// ```swift
    /// let mapping = try MappingModel.inferred(from: tasksV1, to: tasksV2)
    /// mapping.entityMapping(named: "TaskToTask")?.attributeMapping(named: "latitude")
    /// // latitude ← <default> ?? double(0.0)
    /// ```
    ///
    /// - Throws: `StrataError` `migrationFailed` listing every change that cannot be
    ///   inferred, each as `Entity.property: reason` (message, and `problems` in the
    ///   context, one per line).
    public static func inferred(from source: ObjectModel, to destination: ObjectModel) throws -> MappingModel {
        var inference = MappingInference(source: source, destination: destination)
        let mappings = inference.entityMappings()
        let problems = inference.uniqueProblems
        guard problems.isEmpty else {
            throw MappingProblem.error(problems, source: source, destination: destination)
        }
        return MappingModel(from: source, to: destination, entityMappings: mappings)
    }

    /// Every reason a lightweight migration from `source` to `destination` cannot be
    /// inferred; empty when ``inferred(from:to:)`` succeeds. For tools that report rather
    /// than throw.
    public static func inferenceProblems(from source: ObjectModel, to destination: ObjectModel) -> [MappingProblem] {
        var inference = MappingInference(source: source, destination: destination)
        _ = inference.entityMappings()
        return inference.uniqueProblems
    }
}

extension MappingModel {
    /// The inferred mapping of everything that can be inferred, and the list of what
    /// cannot, without throwing: where ``inferred(from:to:)`` refuses at the first
    /// model it cannot map whole, this gives a draft to finish by hand (Core Data's
    /// workflow for a custom mapping model). Properties that a problem names are left
    /// out of the draft's entity mappings, so that nothing in it is a guess.
    ///
    /// ```swift
    /// let draft = MappingModel.inferredDraft(from: v1, to: v2)
    /// for problem in draft.problems {
    ///     print(problem.entity, problem.property ?? "-", problem.reason)
    ///     // Task priority type change String → Int64 is not lossless
    /// }
    /// var mapping = draft.mapping          // TaskToTask maps title, done…, not priority
    /// ```
    public static func inferredDraft(from source: ObjectModel, to destination: ObjectModel) -> MappingDraft {
        var inference = MappingInference(source: source, destination: destination)
        var mappings = inference.entityMappings()
        let problems = inference.uniqueProblems
        for problem in problems {
            guard let property = problem.property else { continue }
            for index in mappings.indices {
                // A problem with an inherited property names the entity that declares it:
                // every sub-entity's mapping loses it too.
                guard let name = mappings[index].destinationEntityName,
                      destination.entity(named: name)?.isKind(of: problem.entity) ?? false else { continue }
                let before = mappings[index].attributeMappings.count + mappings[index].relationshipMappings.count
                mappings[index].attributeMappings.removeAll { $0.name == property }
                mappings[index].relationshipMappings.removeAll { $0.name == property }
                let after = mappings[index].attributeMappings.count + mappings[index].relationshipMappings.count
                if after < before && mappings[index].kind == .copy { mappings[index].kind = .transform }
            }
        }
        return MappingDraft(mapping: MappingModel(from: source, to: destination, entityMappings: mappings), problems: problems)
    }
}
