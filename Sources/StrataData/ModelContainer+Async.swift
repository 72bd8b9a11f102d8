import Strata

extension ModelContainer {
    /// Opens (or creates, or migrates) the store of `forTypes` off Swift's cooperative
    /// pool: the async form of `init(for:migrationPlan:configurations:)`.
    public static func open(for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) async throws -> ModelContainer {
        let schema = try Schema(forTypes)
        return try await ModelContainer.open(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens the store of `schema` off Swift's cooperative pool.
    public static func open(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: [ModelConfiguration]) async throws -> ModelContainer {
        try Task.checkCancellation()
        return try await LaneExecutor.detached {
            try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: configurations)
        }
    }

    /// Runs `body` with a new ``ModelContext`` on one of the store's reader threads,
    /// as `ObjectStore.read(_:)`: return values, not models.
    ///
    /// ```swift
    /// let names = try await container.read { context in
    ///     try context.fetch(FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    /// }
    /// ```
    public func read<T: Sendable>(_ body: @escaping @Sendable (ModelContext) throws -> T) async throws -> T {
        try await store.read { objectContext in
            try body(ModelContext(self, objectContext: objectContext))
        }
    }

    /// Runs `body` with a new ``ModelContext`` on the store's writer lane and saves it,
    /// as `ObjectStore.write(_:)`: durable when it returns, a `.conflict` retried by
    /// running `body` again, `.limitExceeded` past the store's pending writes.
    ///
    /// ```swift
    /// let id = try await container.write { context in
    ///     let todo = Todo(title: "Ship it")
    ///     context.insert(todo)
    ///     return todo.persistentModelID
    /// }
    /// ```
    public func write<T: Sendable>(_ body: @escaping @Sendable (ModelContext) throws -> T) async throws -> T {
        try await store.write { objectContext in
            let context = ModelContext(self, objectContext: objectContext)
            let value = try body(context)
            // What `save()` checks first: a failed accessor must not save half a change.
            try context.throwAccessErrors()
            return value
        }
    }

    /// The identifier of the `T` model whose object has `serial` (``PersistentIdentifier/serial``),
    /// for ids that travel as numbers — a URL's path component — as
    /// `ObjectStore.objectID(entityName:serial:)` for untyped objects. Whether the model
    /// exists is the context's to say (`existingModel(for:as:)`).
    ///
    /// ```swift
    /// guard let serial = UInt64(path), let id = container.persistentIdentifier(for: Todo.self, serial: serial) else { throw notFound }
    /// let title = try await container.read { try $0.existingModel(for: id, as: Todo.self).title }
    /// ```
    ///
    /// - Returns: nil when the store's model has no entity of `T`'s name
    ///   (`PersistentModel.entityName`) or `serial` is out of range.
    public func persistentIdentifier<T: PersistentModel>(for type: T.Type, serial: UInt64) -> PersistentIdentifier? {
        store.objectID(entityName: T.entityName, serial: serial).map(PersistentIdentifier.init(objectID:))
    }

    /// Waits for the reads and writes in flight, then closes the store
    /// (`ObjectStore.close() async`).
    public func close() async throws {
        try await store.close()
    }
}

/// Runs a model actor's work: its executor, and the context confined to it, as
/// SwiftData's `ModelExecutor`. Strata's are serial executors (an actor runs on one).
public protocol ModelExecutor: SerialExecutor {
    /// The context the actor's methods use; touch it only on the executor.
    var modelContext: ModelContext { get }
}

/// A ``ModelExecutor`` (every one is serial here; the name is SwiftData's).
public protocol SerialModelExecutor: ModelExecutor {}

/// A model actor's executor: a ``ModelContext`` and a thread of Strata's own that runs
/// the actor's methods one at a time, so that its reads, faults and saves never block
/// Swift's cooperative pool.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // @unchecked: `modelContext` is not Sendable; it is only used by the actor's
    // methods, which run one at a time on `lane`.
    public let modelContext: ModelContext
    private let lane: LaneExecutor

    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.lane = LaneExecutor(name: "strata.actor")
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        lane.enqueue(job, as: asUnownedSerialExecutor())
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An actor with its own ``ModelContext`` on a thread of Strata's, as SwiftData's
/// `ModelActor`; written with the ``ModelActor()`` macro.
///
/// ```swift
/// @ModelActor actor Importer {
///     func importTodos(_ titles: [String]) throws {
///         for title in titles { modelContext.insert(Todo(title: title)) }
///         try modelContext.save()
///     }
/// }
/// let importer = Importer(modelContainer: container)
/// try await importer.importTodos(["a", "b"])
/// ```
public protocol ModelActor: Actor {
    /// The container the actor's context came from.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor runs on, holding its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor runs on its model executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        modelExecutor.asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with `id` in the actor's context, if it exists.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        try? modelContext.existingModel(for: id, as: type)
    }
}
