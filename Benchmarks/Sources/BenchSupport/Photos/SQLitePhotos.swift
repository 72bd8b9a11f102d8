import Foundation
import GRDB

/// Scenario 1 in SQLite through GRDB: the photo is a column of the employee table (the
/// last one, so reading the others never touches its overflow pages).
public enum SQLitePhotos {
    public static func databasePath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent("employees.sqlite")
    }

    /// A pool with the wanted synchronous level set after opening and checked.
    static func open(in directory: String, synchronous: GRDBEngine.Synchronous) throws -> DatabasePool {
        try GRDBEmployeeStore(path: databasePath(in: directory), synchronous: synchronous).pool
    }

    /// Writes the v1 database (not measured), in transactions of 256 employees.
    public static func build(in directory: String, _ scenario: PhotoScenario) throws {
        let pool = try open(in: directory, synchronous: .normal)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE department (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE employee (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    salary REAL NOT NULL,
                    departmentId INTEGER REFERENCES department(id) ON DELETE SET NULL,
                    photo BLOB);
                CREATE INDEX employee_on_departmentId ON employee(departmentId);
                """)
            for d in 0..<PhotoScenario.departments {
                try db.execute(sql: "INSERT INTO department (id, name) VALUES (?, ?)", arguments: [d + 1, "Department \(d)"])
            }
        }
        var start = 0
        while start < scenario.employees {
            let end = min(scenario.employees, start + 256)
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO employee (id, name, salary, departmentId, photo) VALUES (?, ?, ?, ?, ?)")
                for i in start..<end {
                    statement.setUncheckedArguments([i + 1, PhotoScenario.name(i), PhotoScenario.salary(i),
                                                     i % PhotoScenario.departments + 1, Data(PhotoScenario.photo(i, bytes: scenario.photoBytes))])
                    try statement.execute()
                }
            }
            start = end
        }
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try pool.close()
    }

    /// The list screen: a cursor over id and name (the pool opened in set-up).
    public static func listNames(in directory: String) throws -> WorkloadIteration {
        let pool = try open(in: directory, synchronous: .full)
        return WorkloadIteration(
            run: {
                try pool.read { db in
                    var checksum = 0
                    let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM employee")
                    while let row = try rows.next() {
                        let name: String = row[1]
                        checksum &+= name.utf8.count
                    }
                    return checksum
                }
            },
            finish: { try pool.close() })
    }

    /// For orientation: `Row.fetchAll` of every column, photos included, as a naive
    /// list screen would. Notes the photo bytes loaded (`photoBytes`).
    public static func fetchAllWithPhotos(in directory: String) throws -> WorkloadIteration {
        let pool = try open(in: directory, synchronous: .full)
        let notes = Notes()
        return WorkloadIteration(
            run: {
                try pool.read { db in
                    let rows = try Row.fetchAll(db, sql: "SELECT id, name, salary, departmentId, photo FROM employee")
                    var photoBytes = 0
                    var checksum = 0
                    for row in rows {
                        let name: String = row[1]
                        checksum &+= name.utf8.count
                        if let photo: Data = row[4] { photoBytes += photo.count }
                    }
                    notes["photoBytes"] = photoBytes
                    return checksum
                }
            },
            finish: { try pool.close() },
            notes: notes)
    }

    /// The same change as Strata's photo split, with GRDB's `DatabaseMigrator` in one
    /// transaction: a photo table, INSERT … SELECT, a unique index on its employee
    /// reference, DROP COLUMN. `foreignKeyChecks`: the migrator's default (foreign keys
    /// off during the migration, then `PRAGMA foreign_key_check` of the whole database
    /// before commit) or `disablingDeferredForeignKeyChecks()` (no check). The open is
    /// measured too (Strata migrates as it opens). Notes as `StrataPhotos.migrate`.
    public static func migrate(in directory: String, foreignKeyChecks: Bool) throws -> WorkloadIteration {
        let path = databasePath(in: directory)
        let notes = Notes()
        notes["recordBytes"] = DiskUsage.bytes(at: path)
        let sampler = DiskSampler(path: directory)
        var migrator = DatabaseMigrator()
        if !foreignKeyChecks { migrator = migrator.disablingDeferredForeignKeyChecks() }
        migrator.registerMigration("photoSplit") { db in
            try db.execute(sql: """
                CREATE TABLE photo (
                    id INTEGER PRIMARY KEY,
                    photo BLOB,
                    employeeId INTEGER REFERENCES employee(id) ON DELETE SET NULL);
                INSERT INTO photo (photo, employeeId) SELECT photo, id FROM employee WHERE photo IS NOT NULL;
                CREATE UNIQUE INDEX photo_on_employeeId ON photo(employeeId);
                ALTER TABLE employee DROP COLUMN photo;
                """)
        }
        return WorkloadIteration(
            run: {
                notes["diskBefore"] = sampler.start()
                let photos: Int
                do {
                    let pool = try open(in: directory, synchronous: .full)
                    try migrator.migrate(pool)
                    photos = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? 0 }
                    try pool.close()
                } catch {
                    _ = sampler.stop()
                    throw error
                }
                notes["diskPeak"] = sampler.stop()
                notes["photos"] = photos
                return photos
            },
            finish: {},
            notes: notes)
    }
}
