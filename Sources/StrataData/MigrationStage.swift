/// One step of a ``SchemaMigrationPlan``, as SwiftData's `MigrationStage`.
///
/// ```swift
/// .lightweight(fromVersion: V1.self, toVersion: V2.self)
/// .custom(fromVersion: V1.self, toVersion: V2.self,
///         willMigrate: { old in
///             var carry = MigrationCarry()
///             carry.set(try old.fetch(FetchDescriptor<V1.Note>()).map(\.title), for: "titles")
///             return carry                                  // handed to didMigrate
///         },
///         didMigrate: { new, carry in
///             for title in carry.value(for: "titles", as: [String].self) ?? [] {
///                 new.insert(V2.Note(title: title))
///             }
///         })
/// ```
///
/// **The hand-over is explicit.** In SwiftData, `willMigrate` runs against the old
/// store and `didMigrate` against the new one, and nothing read in the first reaches the
/// second: apps keep it in a static variable, and when that is missed the data is
/// silently lost. Here `willMigrate` returns a `MigrationCarry` and `didMigrate`
/// receives it. Carry values (strings, numbers, `Sendable` structs), not model
/// instances: those belong to the old store's context, which is gone by `didMigrate`.
///
/// SwiftData's own form — `custom(fromVersion:toVersion:willMigrate:didMigrate:)` with
/// hooks of one context each that hand nothing over — compiles unchanged too, for a
/// plan written for SwiftData; the carry is the way to keep data between the two hooks.
///
/// An error thrown by either hook stops the migration and leaves the store at its old
/// version; it is never printed and swallowed. Changes the hooks make are saved with the
/// stage. A property read or write that failed inside a hook fails the stage too.
public enum MigrationStage: Sendable {
    /// Reads the old store before the stage's inferred mapping runs; what it returns
    /// reaches `didMigrate`.
    public typealias WillMigrate = @Sendable (_ old: ModelContext) throws -> MigrationCarry
    /// Runs on the new store after the mapping, with what `willMigrate` returned.
    public typealias DidMigrate = @Sendable (_ new: ModelContext, _ carry: MigrationCarry) throws -> Void
    /// Runs on the new store with the old one still open for reading, so it can stream
    /// the old objects in batches (``ModelContext/enumerate(_:batchSize:block:)``)
    /// instead of carrying them all.
    public typealias DidMigrateReading = @Sendable (_ new: ModelContext, _ old: ModelContext, _ carry: MigrationCarry) throws -> Void

    /// A stage Strata infers (added, removed and renamed properties and models).
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// The inferred mapping plus hooks before and after it, `willMigrate`'s carry handed
    /// to `didMigrate` (which is therefore required: a hook that needs none is
    /// SwiftData's one-context form).
    case custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                willMigrate: WillMigrate?, didMigrate: DidMigrate)
    /// As `custom(fromVersion:toVersion:willMigrate:didMigrate:)`, with `didMigrate`
    /// reading the old store too (a Strata addition: bounded memory for large stores).
    case customStreaming(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                         willMigrate: WillMigrate?, didMigrate: DidMigrateReading)

    /// SwiftData's form of a custom stage: hooks that take one context each and hand
    /// nothing over, either may be nil, so that a plan written for SwiftData compiles
    /// unchanged. Data one hook reads for the other goes through a `MigrationCarry`
    /// with the form whose `didMigrate` takes two arguments.
    ///
    /// ```swift
    /// static let migrateV1toV2 = MigrationStage.custom(
    ///     fromVersion: TripsV1.self, toVersion: TripsV2.self,
    ///     willMigrate: { context in
    ///         let trips = try context.fetch(FetchDescriptor<TripsV1.Trip>())
    ///         print("migrating \(trips.count) trips")
    ///     },
    ///     didMigrate: nil)
    /// ```
    public static func custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                              willMigrate: (@Sendable (_ context: ModelContext) throws -> Void)?,
                              didMigrate: (@Sendable (_ context: ModelContext) throws -> Void)?) -> MigrationStage {
        // Without hooks, the stage is what its mapping infers, and may run in place.
        if willMigrate == nil && didMigrate == nil { return .lightweight(fromVersion: fromVersion, toVersion: toVersion) }
        return .custom(fromVersion: fromVersion, toVersion: toVersion,
                willMigrate: willMigrate.map { hook in { @Sendable context in try hook(context); return MigrationCarry() } },
                didMigrate: { @Sendable context, _ in try didMigrate?(context) })
    }

    func strataStage(_ lookup: (any VersionedSchema.Type) throws -> Schema) throws -> Strata.MigrationStage {
        switch self {
        case .lightweight(let from, let to):
            return .lightweight(from: try lookup(from).objectModel, to: try lookup(to).objectModel)
        case .custom(let from, let to, let will, let did):
            let old = try lookup(from)
            let new = try lookup(to)
            return .custom(
                from: old.objectModel, to: new.objectModel,
                willMigrate: will.map { hook in { @Sendable context in try Self.run(hook, context, old) } },
                didMigrate: { @Sendable context, carry in
                    _ = try Self.run({ try did($0, carry); return MigrationCarry() }, context, new)
                })
        case .customStreaming(let from, let to, let will, let did):
            let old = try lookup(from)
            let new = try lookup(to)
            return .custom(
                from: old.objectModel, to: new.objectModel,
                willMigrate: will.map { hook in { @Sendable context in try Self.run(hook, context, old) } },
                didMigrate: { @Sendable newContext, oldContext, carry in
                    let oldModels = ModelContext(ModelContainer(schema: old, store: oldContext.store), objectContext: oldContext)
                    _ = try Self.run({ try did($0, oldModels, carry); return MigrationCarry() }, newContext, new)
                    try oldModels.throwAccessErrors()
                })
        }
    }

    /// Runs a hook on a typed view of the migration's context; accessor failures fail it.
    private static func run(_ hook: (ModelContext) throws -> MigrationCarry, _ context: ObjectContext, _ schema: Schema) throws -> MigrationCarry {
        let models = ModelContext(ModelContainer(schema: schema, store: context.store), objectContext: context)
        let carry = try hook(models)
        try models.throwAccessErrors()
        return carry
    }
}
