import Foundation
import GRDB
import Logging
import Synchronization

/// The repository over SQLite through GRDB: a `DatabasePool` in WAL mode with
/// `synchronous=FULL`, so that a write is on disk when its transaction commits, as a
/// Strata save is.
///
/// Every access goes through GRDB's `async` `read` and `write`, which run on GRDB's
/// own queues (one writer, a bounded set of readers) and leave the cooperative pool
/// free while SQLite waits on the disk.
public final class SQLiteRepository: Repository {
    /// The database file's name inside the data directory.
    public static let fileName = "Todos.sqlite"

    let pool: DatabasePool
    let metrics: DatabaseMetrics
    private let closed = Mutex(false)

    public var systemName: String { "sqlite" }

    private init(pool: DatabasePool) {
        self.pool = pool
        self.metrics = DatabaseMetrics(systemName: "sqlite")
    }

    /// Opens (or creates) `Todos.sqlite` in `directory`, creates the tables and seeds
    /// the World table on first start.
    ///
    /// - Throws: a `DatabaseError` when the file cannot be opened or migrated.
    public static func open(directory: String, logger: Logger) async throws -> SQLiteRepository {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(fileName)
        var configuration = Configuration()
        configuration.label = "Todos"
        // A pool opens its connections in WAL mode. FULL makes every commit wait for
        // fsync of the WAL: a 201 means the todo survives a power cut, not only a
        // crash of this process (NORMAL's promise).
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        // A second writing process (another server on the same directory) waits a
        // little, then fails with SQLITE_BUSY, which the API answers with 503.
        configuration.busyMode = .timeout(2)
        let pool = try DatabasePool(path: path, configuration: configuration)
        let repository = SQLiteRepository(pool: pool)
        do {
            try await repository.prepare(logger: logger)
        } catch {
            try? pool.close()
            throw error
        }
        return repository
    }

    private func prepare(logger: Logger) async throws {
        // The migrator's writer-queue form, awaited: `migrate(_:)` would block a
        // thread of the cooperative pool while the schema is written.
        let migrator = Self.migrator
        let pool = self.pool
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            migrator.asyncMigrate(pool) { result in continuation.resume(with: result.map { _ in () }) }
        }
        let seeded = try await pool.write { db -> Bool in
            guard try World.fetchCount(db) == 0 else { return false }
            let insert = try db.cachedStatement(sql: "INSERT INTO World (id, randomNumber) VALUES (?, ?)")
            for row in World.initialRows() {
                try insert.execute(arguments: [row.id, row.randomNumber])
            }
            return true
        }
        if seeded { logger.info("seeded the World table", metadata: ["rows": "\(World.count)", "engine": "sqlite"]) }
    }

    // MARK: World

    public func world(id: Int) async throws -> World? {
        try await metrics.measure("world") {
            try await pool.read { db in try World.fetchOne(db, key: id) }
        }
    }

    public func updateWorlds(_ rows: [World]) async throws {
        try await metrics.measure("updateWorlds") {
            try await pool.write { db in
                let update = try db.cachedStatement(sql: "UPDATE World SET randomNumber = ? WHERE id = ?")
                for row in rows {
                    try update.execute(arguments: [row.randomNumber, row.id])
                    if db.changesCount == 0 { throw APIError.notFound("World \(row.id)") }
                }
            }
        }
    }

    // MARK: Todos

    public func createTodo(_ new: NewTodo) async throws -> Todo {
        try await metrics.measure("createTodo") {
            try await pool.write { db in
                let createdAt = Todo.creationDate()
                try db.execute(
                    sql: #"INSERT INTO todos (title, completed, "order", createdAt) VALUES (?, ?, ?, ?)"#,
                    arguments: [new.title, new.completed ?? false, new.order, createdAt])
                return Todo(id: Int(db.lastInsertedRowID), title: new.title, completed: new.completed ?? false, order: new.order, createdAt: createdAt)
            }
        }
    }

    public func todo(id: Int) async throws -> Todo? {
        try await metrics.measure("todo") {
            try await pool.read { db in try Todo.fetchOne(db, key: id) }
        }
    }

    public func updateTodo(id: Int, with patch: TodoPatch) async throws -> Todo? {
        try await metrics.measure("updateTodo") {
            try await pool.write { db -> Todo? in
                guard var todo = try Todo.fetchOne(db, key: id) else { return nil }
                if let title = patch.title { todo.title = title }
                if let completed = patch.completed { todo.completed = completed }
                if let order = patch.order { todo.order = order }
                try todo.update(db)
                return todo
            }
        }
    }

    public func deleteTodo(id: Int) async throws -> Bool {
        try await metrics.measure("deleteTodo") {
            try await pool.write { db in try Todo.deleteOne(db, key: id) }
        }
    }

    public func todos(after: Int, limit: Int) async throws -> TodoPage {
        try await metrics.measure("todos") {
            try await pool.read { db in
                // The primary key's b-tree: a seek to `after`, then `limit` rows and one
                // more, which says whether another page follows.
                let rows = try Todo.filter(Column("id") > after).order(Column("id")).limit(limit + 1).fetchAll(db)
                let page = Array(rows.prefix(limit))
                return TodoPage(todos: page, next: rows.count > limit ? page.last?.id : nil)
            }
        }
    }

    // MARK: Backup

    /// SQLite's online backup (`sqlite3_backup`, GRDB's `Database.backup(to:)`) from a
    /// reader of the pool into a new `Todos.sqlite` in `directory`, in one step: the
    /// reader's transaction is one snapshot of the WAL, and the writer goes on
    /// committing meanwhile. `sequence` is the number of todos in the copy, counted in
    /// the same snapshot (SQLite numbers no transactions).
    ///
    /// All of it runs on the reader's queue, off the cooperative pool. The copy is
    /// fsynced (the destination commits with `synchronous=FULL`), and so are its
    /// directory and that directory's parent; a failed backup removes `directory`.
    public func backup(into directory: String) async throws -> BackupSummary {
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        return try await metrics.measure("createBackup") {
            try await pool.read { db in
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                do {
                    let destination = try DatabaseQueue(path: path)
                    let todos: Int
                    do {
                        try destination.writeWithoutTransaction { copy in try db.backup(to: copy) }
                        todos = try Todo.fetchCount(db)
                    } catch {
                        try? destination.close()
                        throw error
                    }
                    try destination.close()
                    try Self.syncDirectory(directory)
                    try Self.syncDirectory((directory as NSString).deletingLastPathComponent)
                    let files = try FileManager.default.contentsOfDirectory(atPath: directory)
                    let bytes = try files.reduce(Int64(0)) { sum, name in
                        let attributes = try FileManager.default.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(name))
                        return sum + ((attributes[.size] as? NSNumber)?.int64Value ?? 0)
                    }
                    return BackupSummary(path: path, sequence: UInt64(todos), files: files.count, bytes: bytes)
                } catch {
                    try? FileManager.default.removeItem(atPath: directory)
                    throw error
                }
            }
        }
    }

    /// fsync of a directory, so that the names created in it survive a power cut.
    private static func syncDirectory(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        try handle.synchronize()
    }

    // MARK: Lifecycle

    public var readiness: Readiness {
        closed.withLock { $0 } ? .unavailable(reason: "the database is closed") : .ready
    }

    /// Closes the pool once the WAL is checkpointed into the database file, so that the
    /// file holds everything on its own; every connection closed. Called by
    /// ``SQLiteService`` once the HTTP server has stopped.
    ///
    /// The checkpoint is explicit: SQLite checkpoints at the last close only when that
    /// connection may write, and a pool's last connection to close may be a reader.
    public func close() throws {
        closed.withLock { $0 = true }
        _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try pool.close()
    }
}
