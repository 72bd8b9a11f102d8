import Foundation
import GRDB
import Strata

/// Lightweight migration of a store of N employees: one attribute added (`bonus`, an
/// integer with default 0). Each iteration migrates a fresh copy of the fixture (the
/// copy is set-up, not measured); the open is measured with the migration, on both
/// sides. The yardstick is `cp -r` of the same store (`TreeCopy.workload`).
public enum LightweightMigration {
    /// SQLite's two ways: `ALTER TABLE … ADD COLUMN` (a schema change only: constant
    /// time), or the table rewrite GRDB documents for changes ADD COLUMN cannot make
    /// (new table, INSERT … SELECT, drop, rename, recreate the index).
    public enum SQLiteWay: String, Sendable {
        case addColumn = "ADD COLUMN"
        case rewrite = "table rewrite"
    }

    /// Strata: opening the copy with `BenchModels.employeesWithBonus()` (or `model`) and
    /// `.inferred`. The stage runs in place: a new record layout in the
    /// store's layout table and one manifest swap, no record rewritten.
    public static func strata(_ employees: [Employee], model: ObjectModel? = nil) throws -> WorkloadIteration {
        let (scratch, copy) = try freshCopy(of: StrataObjectEngine(), employees)
        let path = StrataObjectEngine.storePath(in: copy)
        var options = StrataObjectEngine.options()
        options.migration = .inferred
        let model = try model ?? BenchModels.employeesWithBonus()
        return WorkloadIteration(
            run: {
                let store = try ObjectStore(at: path, model: model, options: options)
                let count = Result { try store.newContext().count(for: FetchRequest(entityName: "Employee")) }
                try store.close()
                return try count.get()
            },
            finish: { scratch.remove() })
    }

    public static func sqlite(_ employees: [Employee], _ way: SQLiteWay) throws -> WorkloadIteration {
        let sql = switch way {
        case .addColumn:
            "ALTER TABLE employee ADD COLUMN bonus INTEGER NOT NULL DEFAULT 0"
        case .rewrite:
            """
            CREATE TABLE new_employee (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                email TEXT NOT NULL,
                salary INTEGER NOT NULL,
                departmentId INTEGER NOT NULL,
                bonus INTEGER NOT NULL DEFAULT 0);
            INSERT INTO new_employee (id, name, email, salary, departmentId) SELECT id, name, email, salary, departmentId FROM employee;
            DROP TABLE employee;
            ALTER TABLE new_employee RENAME TO employee;
            CREATE INDEX employee_on_departmentId ON employee(departmentId);
            """
        }
        return try sqlite(employees, sql: sql)
    }

    /// SQLite's statement for each of the other in-place changes: a rename and a new
    /// nullable column (with its table) are schema changes; DROP COLUMN and making a
    /// NOT NULL column nullable rewrite the table (SQLite cannot relax NOT NULL in place).
    public static func sqlite(_ employees: [Employee], _ change: BenchModels.InPlaceChange) throws -> WorkloadIteration {
        let sql = switch change {
        case .rename:
            "ALTER TABLE employee RENAME COLUMN email TO contact"
        case .remove:
            "ALTER TABLE employee DROP COLUMN email"
        case .optionality:
            """
            CREATE TABLE new_employee (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                email TEXT NOT NULL,
                salary INTEGER,
                departmentId INTEGER NOT NULL);
            INSERT INTO new_employee (id, name, email, salary, departmentId) SELECT id, name, email, salary, departmentId FROM employee;
            DROP TABLE employee;
            ALTER TABLE new_employee RENAME TO employee;
            CREATE INDEX employee_on_departmentId ON employee(departmentId);
            """
        case .relationship:
            """
            CREATE TABLE badge (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
            ALTER TABLE employee ADD COLUMN badgeId INTEGER REFERENCES badge(id);
            """
        case .unique:
            "CREATE UNIQUE INDEX employee_on_email ON employee(email)"
        }
        return try sqlite(employees, sql: sql)
    }

    static func sqlite(_ employees: [Employee], sql: String) throws -> WorkloadIteration {
        let (scratch, copy) = try freshCopy(of: GRDBEngine(synchronous: .full), employees)
        return WorkloadIteration(
            run: {
                let store = try GRDBEmployeeStore(path: GRDBEngine.databasePath(in: copy), synchronous: .full)
                try store.pool.write { db in try db.execute(sql: sql) }
                let count = try store.count()
                try store.close()
                return count
            },
            finish: { scratch.remove() })
    }

    /// `cp -r` of the fixture store of `engine`'s format.
    public static func copyStore(_ engine: any EmployeeEngine, _ employees: [Employee]) throws -> WorkloadIteration {
        try TreeCopy.workload(copying: FixtureCache.shared.directory(for: engine, employees: employees))
    }

    /// A scratch directory holding a copy (`copy`) of the fixture of `engine`'s format.
    static func freshCopy(of engine: any EmployeeEngine, _ employees: [Employee]) throws -> (ScratchDirectory, String) {
        let fixture = try FixtureCache.shared.directory(for: engine, employees: employees)
        let scratch = try ScratchDirectory("copy")
        let copy = (scratch.path as NSString).appendingPathComponent("copy")
        do {
            try TreeCopy.copy(fixture, to: copy)
        } catch {
            scratch.remove()
            throw error
        }
        return (scratch, copy)
    }
}
