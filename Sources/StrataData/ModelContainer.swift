import Foundation

/// The store behind a set of model types, as SwiftData's `ModelContainer`: thin over an
/// `ObjectStore` and, like it, `Sendable` — share one container and make a
/// ``ModelContext`` per task.
///
/// ```swift
/// let container = try ModelContainer(for: Employee.self, Department.self,
///                                    configurations: ModelConfiguration(url: storeURL))
/// let context = ModelContext(container)
/// ```
///
/// Opening a store written by another version of the models migrates it: through the
/// `migrationPlan` when there is one, else by inference (lightweight migration), as
/// SwiftData does; what cannot be inferred is an error before anything is written.
public final class ModelContainer: Sendable {
    /// The model types and the untyped model built from them.
    public let schema: Schema
    /// The configuration the store was opened with.
    public let configurations: [ModelConfiguration]
    /// The untyped store: contexts, fetches and saves of both APIs go through it.
    public let store: ObjectStore

    /// Opens (or creates) the store of `forTypes`.
    ///
    /// - Parameters:
    ///   - forTypes: The model classes. Related models are not added for you: list every one.
    ///   - migrationPlan: The versioned schemas and stages that take older stores to this one.
    ///   - configurations: Exactly one configuration.
    /// - Throws: `StrataError`: `invalidModel` for a model Strata cannot store,
    ///   `incompatibleModel`/migration errors for a store that cannot be brought to this
    ///   schema, `invalidArgument` for no or several configurations.
    public convenience init(
        for forTypes: any PersistentModel.Type...,
        migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: try Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens (or creates) the store of `schema`; see `init(for:migrationPlan:configurations:)`.
    public init(
        for schema: Schema,
        migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration]
    ) throws {
        guard configurations.count == 1, let configuration = configurations.first else {
            throw StrataError(.invalidArgument, "a ModelContainer takes exactly one ModelConfiguration (a url, or isStoredInMemoryOnly), not \(configurations.count)")
        }
        var options = configuration.options
        if let migrationPlan {
            options.migration = .plan(try migrationPlan.strataPlan(ending: schema))
        } else if case .none = options.migration {
            options.migration = .inferred
        }
        if configuration.isStoredInMemoryOnly {
            store = try ObjectStore.inMemory(model: schema.objectModel, options: options)
        } else if let url = configuration.url {
            store = try ObjectStore(at: url.path, model: schema.objectModel, options: options)
        } else {
            throw StrataError(.invalidArgument, "the ModelConfiguration has neither a url nor isStoredInMemoryOnly")
        }
        self.schema = schema
        self.configurations = configurations
    }

    /// A container over a store opened elsewhere (a migration hook's, or untyped code's),
    /// for contexts of `schema`'s types.
    public init(schema: Schema, store: ObjectStore) {
        self.schema = schema
        self.configurations = []
        self.store = store
    }

    /// Closes the store; contexts made from the container stop working.
    public func close() throws { try store.close() }
}
