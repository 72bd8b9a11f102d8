import Foundation
import Logging
import Strata
import StrataPostgres

/// The repository over a Strata store, through the store's `async` `read` and `write`:
/// their bodies run on Strata's reader threads and its writer, never on the
/// cooperative pool, and a `write` returns once its save is durable.
///
/// Ids are object serials. World rows are seeded in id order into an empty store, so
/// that serial *n* is World row *n*; a todo's id is the serial its insert took, and
/// `store.objectID(entityName:serial:)` turns a URL's id back into an object id.
public final class StrataRepository: Repository {
    /// The store's directory inside the data directory.
    public static let directoryName = "Todos.strata"

    /// The open store. ``StoreService`` closes it when the service shuts down.
    public let store: ObjectStore
    let metrics: DatabaseMetrics

    public var systemName: String { "strata" }

    private init(store: ObjectStore) {
        self.store = store
        self.metrics = DatabaseMetrics(systemName: "strata")
    }

    /// The store's options here: an 8 MiB block cache, about what SQLite's page caches
    /// in the other engine's pool hold (2 MiB a connection), instead of the default
    /// 24 MiB. The cache is most of a store's memory; with this store's few megabytes it
    /// fills with blocks of superseded World versions that `/updates` leaves behind.
    public static var options: StoreOptions {
        var options = StoreOptions()
        options.log.blockCacheBytes = 8 << 20
        return options
    }

    /// Opens (or creates) the store and seeds the World rows into a new one: the store
    /// at `location` when one is given, else `Todos.strata` in `directory`.
    ///
    /// The location is the store's description, and the code is the same for every
    /// store type (``storeType(for:)``): a `postgres://` URL puts the store on a
    /// PostgreSQL server, where several instances of the service may serve it at once.
    ///
    /// - Throws: the store's errors (`.storeLocked` when another process has a local
    ///   store open, `.incompatibleModel`, `.corrupt`, `.io` for a server that cannot be
    ///   reached…).
    public static func open(directory: String, location: String? = nil, options: StoreOptions = StrataRepository.options, logger: Logger) async throws -> StrataRepository {
        var options = options
        options.logger = logger
        let path: String
        if let location {
            path = location
            options.storeType = storeType(for: location)
        } else {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            path = (directory as NSString).appendingPathComponent(directoryName)
        }
        let store = try await ObjectStore.open(at: path, model: try makeModel(), options: options)
        do {
            if try await seedWorlds(in: store) {
                logger.info("seeded the World table", metadata: ["rows": "\(World.count)", "engine": "strata", "store": "\(store.path)"])
            }
        } catch {
            try? await store.close()
            throw error
        }
        return StrataRepository(store: store)
    }

    /// The store type a location names: `postgres://` (or `postgresql://`) a store on
    /// a PostgreSQL server, anything else a directory on the local disk.
    public static func storeType(for location: String) -> StoreOptions.StoreType {
        let lowered = location.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") ? .postgres : .segmentLog
    }

    /// Inserts the World rows into a store that has none, in id order, in one batch
    /// insert (records written straight from values, no objects made: a context's
    /// 10,000 inserted objects left the process's heap grown for the rest of its life).
    /// Returns whether it did.
    private static func seedWorlds(in store: ObjectStore) async throws -> Bool {
        try await store.write { context in
            guard try context.count(for: FetchRequest(entityName: "World")) == 0 else { return false }
            let rows = World.initialRows()
            let ids = try store.batchInsert(entityName: "World", objects: rows.map { ["randomNumber": .int(Int64($0.randomNumber))] })
            // The id is the serial: a store whose World serials were used before
            // (rows inserted and deleted) cannot number them 1…10,000.
            for (row, id) in zip(rows, ids) where id.serial != UInt64(row.id) {
                throw StrataError(.invalidArgument, "World row \(row.id) got serial \(id.serial): this store's World serials were used before")
            }
            return true
        }
    }

    /// The object id of `entity`'s object with serial `id`; nil for an id no object can
    /// have (zero, negative, past 2^48).
    private func objectID(_ entity: String, _ id: Int) -> ObjectID? {
        guard id > 0 else { return nil }
        return store.objectID(entityName: entity, serial: UInt64(id))
    }

    // MARK: World

    public func world(id: Int) async throws -> World? {
        guard let objectID = objectID("World", id) else { return nil }
        return try await metrics.measure("world") {
            try await store.read { context in
                do {
                    let object = try context.existingObject(with: objectID)
                    return World(id: id, randomNumber: try object.int("randomNumber") ?? 0)
                } catch StrataError.Code.objectNotFound {
                    return nil
                }
            }
        }
    }

    public func updateWorlds(_ rows: [World]) async throws {
        let targets = try rows.map { row in
            guard let objectID = objectID("World", row.id) else { throw APIError.notFound("World \(row.id)") }
            return (objectID, row.randomNumber)
        }
        try await metrics.measure("updateWorlds") {
            try await store.write { context in
                for (objectID, randomNumber) in targets {
                    try context.existingObject(with: objectID).setValue(randomNumber, forKey: "randomNumber")
                }
            }
        }
    }

    // MARK: Todos

    public func createTodo(_ new: NewTodo) async throws -> Todo {
        try await metrics.measure("createTodo") {
            try await store.write { context in
                let object = try context.insert("Todo")
                try object.setValue(new.title, forKey: "title")
                try object.setValue(new.order, forKey: "order")
                try object.setValue(new.completed ?? false, forKey: "completed")
                try object.setValue(Todo.creationDate(), forKey: "createdAt")
                return try Todo(object)
            }
        }
    }

    public func todo(id: Int) async throws -> Todo? {
        guard let objectID = objectID("Todo", id) else { return nil }
        return try await metrics.measure("todo") {
            try await store.read { context in
                do {
                    return try Todo(context.existingObject(with: objectID))
                } catch StrataError.Code.objectNotFound {
                    return nil
                }
            }
        }
    }

    public func updateTodo(id: Int, with patch: TodoPatch) async throws -> Todo? {
        guard let objectID = objectID("Todo", id) else { return nil }
        return try await metrics.measure("updateTodo") {
            try await store.write { context -> Todo? in
                let object: ManagedObject
                do {
                    object = try context.existingObject(with: objectID)
                } catch StrataError.Code.objectNotFound {
                    return nil
                }
                if let title = patch.title { try object.setValue(title, forKey: "title") }
                if let completed = patch.completed { try object.setValue(completed, forKey: "completed") }
                if let order = patch.order { try object.setValue(order, forKey: "order") }
                return try Todo(object)
            }
        }
    }

    public func deleteTodo(id: Int) async throws -> Bool {
        guard let objectID = objectID("Todo", id) else { return false }
        return try await metrics.measure("deleteTodo") {
            try await store.write { context in
                do {
                    try context.delete(context.existingObject(with: objectID))
                    return true
                } catch StrataError.Code.objectNotFound {
                    return false
                }
            }
        }
    }

    /// A page by id: the context lists the ids after `after` from the key index
    /// (`fetchObjectIDs(entityName:after:limit:)`, which reads no record and stops after
    /// `limit`), then loads each todo.
    public func todos(after: Int, limit: Int) async throws -> TodoPage {
        let start: ObjectID?
        if after > 0 {
            guard let afterID = objectID("Todo", after) else { return TodoPage(todos: [], next: nil) }  // past every serial
            start = afterID
        } else {
            start = nil
        }
        let store = self.store
        return try await metrics.measure("todos") {
            try await store.read { context in
                // One id more than the page, which says whether another page follows:
                // the listing's, since a todo deleted before its read leaves the page
                // short without ending the list.
                let ids = try context.fetchObjectIDs(entityName: "Todo", after: start, limit: limit + 1)
                let listed = ids.prefix(limit)
                let todos = try listed.compactMap { objectID -> Todo? in
                    do {
                        return try Todo(context.existingObject(with: objectID))
                    } catch StrataError.Code.objectNotFound {
                        return nil  // deleted between the listing and the read
                    }
                }
                return TodoPage(todos: todos, next: ids.count > limit ? listed.last.map { Int($0.serial) } : nil)
            }
        }
    }

    // MARK: Backup

    /// The store's online backup (`ObjectStore.backup(to:)`): the copy holds every
    /// transaction up to the one it reports, and the store goes on committing while
    /// the files are linked or copied, on a thread of the store's own.
    public func backup(into directory: String) async throws -> BackupSummary {
        let store = self.store
        return try await metrics.measure("createBackup") {
            let report = try await store.backup(to: directory)
            return BackupSummary(path: directory, sequence: report.sequence, files: report.files, bytes: report.bytes)
        }
    }

    // MARK: Lifecycle

    /// From `store.health`, which reads the store's state under a lock: it never waits
    /// for the writer.
    public var readiness: Readiness {
        switch store.health.state {
        case .open:
            return .ready
        case .readOnly(let reason):
            return .unavailable(reason: "the store is read-only: \(reason)")
        case .closed:
            return .unavailable(reason: "the store is closed")
        }
    }
}
