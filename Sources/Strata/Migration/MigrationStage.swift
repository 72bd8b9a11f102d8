/// One step of a ``MigrationPlan``, from one model version to the next, as SwiftData's
/// `MigrationStage`.
///
/// ```swift
/// let stages: [MigrationStage] = [
///     .lightweight(from: v1, to: v2),
///     .custom(from: v2, to: v3, mapping: photoSplit),
///     .custom(from: v3, to: v4, willMigrate: { old in
///         var carry = MigrationCarry()
///         carry["count"] = .int(Int64(try old.fetch(FetchRequest(entityName: "Plant")).count))
///         return carry
///     }, didMigrate: { new, carry in
///         // … insert objects on the new model
///     }),
/// ]
/// ```
///
/// A `.custom` stage with hooks migrates the data between them as a lightweight stage
/// does (the inferred mapping) unless it is given a mapping too.
public struct MigrationStage: Sendable {
    /// Runs on a context on the source model before the data is migrated; what it
    /// returns is handed to ``DidMigrate``.
    public typealias WillMigrate = @Sendable (ObjectContext) throws -> MigrationCarry
    /// Runs on a context on the destination model after the data is migrated, with what
    /// ``WillMigrate`` returned (an empty carry when there is no `willMigrate`).
    public typealias DidMigrate = @Sendable (ObjectContext, MigrationCarry) throws -> Void
    /// A ``DidMigrate`` that also gets a context on the old store (read it, don't save
    /// it): it can stream the old objects in batches with
    /// ``ObjectContext/enumerateObjects(_:batchSize:_:)`` and save the new context after
    /// each batch, instead of carrying every old object over from `willMigrate`.
    ///
    /// ```swift
    /// .custom(from: v1, to: v2, willMigrate: nil, didMigrate: { new, old, _ in
    ///     try old.enumerateObjects(FetchRequest(entityName: "WineNote"), batchSize: 500) { notes in
    ///         for note in notes { /* insert a WineTastingNote in `new` */ }
    ///         try new.save()
    ///     }
    /// })
    /// ```
    public typealias DidMigrateReading = @Sendable (_ new: ObjectContext, _ old: ObjectContext, _ carry: MigrationCarry) throws -> Void
    /// A `didMigrate` that gets a ``MigrationStageContext``: the new and old contexts,
    /// the carry, and Realm's paired enumeration of an entity's old and new objects,
    /// streamed in batches.
    ///
    /// ```swift
    /// .custom(from: v1, to: v2, willMigrate: nil, didMigrate: { stage in
    ///     try stage.enumerateObjects(ofType: "Person") { old, new in
    ///         let parts = (try old.string("address") ?? "").split(separator: ",")
    ///         try new?.setValue(String(parts.first ?? ""), forKey: "street")
    ///     }
    /// })
    /// ```
    public typealias DidMigrateStage = @Sendable (_ stage: MigrationStageContext) throws -> Void

    /// Whether a stage is inferred or custom.
    package enum Kind: String, Sendable, Hashable {
        /// The inferred mapping, no hooks.
        case lightweight
        /// A mapping model, hooks, or both.
        case custom
    }

    /// The model the stage starts from.
    package let source: ObjectModel
    /// The model the stage arrives at.
    package let destination: ObjectModel
    /// Whether the stage is lightweight or custom.
    package let kind: Kind
    /// The stage's own mapping model; nil means the inferred one.
    package let mapping: MappingModel?
    /// The hook run before the data is migrated, on the old model.
    package let willMigrate: WillMigrate?
    /// The hook run after the data is migrated, on the new model (nil for a stage made
    /// with a ``DidMigrateReading`` hook).
    package let didMigrate: DidMigrate?
    /// The hook that runs after the data is migrated, whichever form it was given in.
    let didMigrateHook: DidMigrateStage?

    private init(
        source: ObjectModel, destination: ObjectModel, kind: Kind,
        mapping: MappingModel?, willMigrate: WillMigrate?, didMigrate: DidMigrate?,
        reading: DidMigrateReading? = nil, staged: DidMigrateStage? = nil
    ) {
        self.source = source
        self.destination = destination
        self.kind = kind
        self.mapping = mapping
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
        if let staged {
            self.didMigrateHook = staged
        } else if let reading {
            self.didMigrateHook = { @Sendable stage in try reading(stage.new, stage.old, stage.carry) }
        } else if let didMigrate {
            self.didMigrateHook = { @Sendable stage in try didMigrate(stage.new, stage.carry) }
        } else {
            self.didMigrateHook = nil
        }
    }

    /// A stage whose mapping is inferred (``MappingModel/inferred(from:to:)``).
    public static func lightweight(from source: ObjectModel, to destination: ObjectModel) -> MigrationStage {
        MigrationStage(source: source, destination: destination, kind: .lightweight,
                       mapping: nil, willMigrate: nil, didMigrate: nil)
    }

    /// A stage that runs a mapping model written for it.
    public static func custom(
        from source: ObjectModel, to destination: ObjectModel, mapping: MappingModel
    ) -> MigrationStage {
        MigrationStage(source: source, destination: destination, kind: .custom,
                       mapping: mapping, willMigrate: nil, didMigrate: nil)
    }

    /// A stage with hooks around a migration, as SwiftData's custom stage: around the
    /// mapping model written for it, or without one, around the inferred mapping.
    public static func custom(
        from source: ObjectModel, to destination: ObjectModel, mapping: MappingModel? = nil,
        willMigrate: WillMigrate?, didMigrate: DidMigrate?
    ) -> MigrationStage {
        MigrationStage(source: source, destination: destination, kind: .custom,
                       mapping: mapping, willMigrate: willMigrate, didMigrate: didMigrate)
    }

    /// A stage with hooks around a migration (its own mapping model, or the inferred
    /// one) whose `didMigrate` also reads the old store, to stream old objects in
    /// batches (``DidMigrateReading``).
    @_disfavoredOverload
    public static func custom(
        from source: ObjectModel, to destination: ObjectModel, mapping: MappingModel? = nil,
        willMigrate: WillMigrate?, didMigrate: @escaping DidMigrateReading
    ) -> MigrationStage {
        MigrationStage(source: source, destination: destination, kind: .custom,
                       mapping: mapping, willMigrate: willMigrate, didMigrate: nil, reading: didMigrate)
    }

    /// A stage with hooks around a migration (its own mapping model, or the inferred
    /// one) whose `didMigrate` gets a ``MigrationStageContext``, to walk old and new
    /// objects in pairs (``MigrationStageContext/enumerateObjects(ofType:batchSize:_:)``).
    @_disfavoredOverload
    public static func custom(
        from source: ObjectModel, to destination: ObjectModel, mapping: MappingModel? = nil,
        willMigrate: WillMigrate?, didMigrate: @escaping DidMigrateStage
    ) -> MigrationStage {
        MigrationStage(source: source, destination: destination, kind: .custom,
                       mapping: mapping, willMigrate: willMigrate, didMigrate: nil, staged: didMigrate)
    }

    /// The mapping model the stage runs: its own, or the inferred one.
    ///
    /// - Throws: `StrataError` `migrationFailed` when the inferred mapping cannot be
    ///   inferred, or the stage's own mapping names other model hashes.
    package func mappingModel() throws -> MappingModel {
        guard let mapping else { return try MappingModel.inferred(from: source, to: destination) }
        if let problem = mappingHashProblem(mapping) { throw problem.planError() }
        return mapping
    }

    /// `"1" → "2"`, for messages.
    package var label: String { "'\(source.versionIdentifier)' → '\(destination.versionIdentifier)'" }

    func mappingHashProblem(_ mapping: MappingModel) -> MigrationPlanProblem? {
        guard mapping.sourceModelHash != source.versionHash || mapping.destinationModelHash != destination.versionHash
        else { return nil }
        return MigrationPlanProblem(
            "stage \(label): its mapping model goes from hash \(mapping.sourceModelHash) to "
            + "\(mapping.destinationModelHash), not from \(source.versionHash) to \(destination.versionHash)")
    }
}
