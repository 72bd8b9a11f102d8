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
    /// - Throws: ``StrataError`` `migrationFailed` listing every change that cannot be
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
