import GRDB

extension SQLiteRepository {
    /// The tables, as GRDB migrations: each runs once per database file.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("World and todos") { db in
            try db.execute(sql: """
                CREATE TABLE World (
                    id INTEGER PRIMARY KEY,
                    randomNumber INTEGER NOT NULL
                );
                CREATE TABLE todos (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND \(Todo.maximumTitleLength)),
                    completed INTEGER NOT NULL DEFAULT 0,
                    "order" INTEGER,
                    createdAt TEXT NOT NULL
                );
                """)
        }
        return migrator
    }
}

/// World rows are read and written by primary key.
extension World: FetchableRecord, TableRecord {
    public static let databaseTableName = "World"
}

/// Todos map column for property (`id`, `title`, `completed`, `order`, `createdAt`).
extension Todo: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "todos"
}
