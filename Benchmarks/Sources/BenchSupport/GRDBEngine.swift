import Foundation
import GRDB

/// The peer: SQLite through GRDB in its best documented configuration — a
/// `DatabasePool` (WAL), cached prepared statements, bulk work in one transaction.
///
/// GRDB sets `synchronous = NORMAL` on WAL databases after the configuration's
/// `prepareDatabase` runs, so the wanted level is set again after opening (and read
/// back to be sure): FULL for the durable figures, NORMAL beside it.
public struct GRDBEngine: EmployeeEngine {
    public enum Synchronous: String, Sendable {
        case full = "FULL"
        case normal = "NORMAL"
    }

    public let synchronous: Synchronous
    /// Whether open runs `PRAGMA integrity_check` first: SQLite's check of a whole
    /// database, the peer of Strata's paranoid open.
    public let integrityCheck: Bool

    public init(synchronous: Synchronous, integrityCheck: Bool = false) {
        self.synchronous = synchronous
        self.integrityCheck = integrityCheck
    }

    public var side: EngineSide { .sqlite }
    public var fixtureBuilder: any EmployeeEngine { GRDBEngine(synchronous: .normal) }
    public var name: String { "SQLite WAL \(synchronous.rawValue)" + (integrityCheck ? " integrity_check" : "") }

    public static func databasePath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent("employees.sqlite")
    }

    public func create(in directory: String) throws -> any EmployeeStore {
        let store = try GRDBEmployeeStore(path: Self.databasePath(in: directory), synchronous: synchronous)
        try store.pool.write { db in
            try db.execute(sql: """
                CREATE TABLE employee (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    email TEXT NOT NULL,
                    salary INTEGER NOT NULL,
                    departmentId INTEGER NOT NULL);
                CREATE INDEX employee_on_departmentId ON employee(departmentId);
                """)
        }
        return store
    }

    public func open(in directory: String) throws -> any EmployeeStore {
        let store = try GRDBEmployeeStore(path: Self.databasePath(in: directory), synchronous: synchronous)
        if integrityCheck {
            let result = try store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
            guard result == "ok" else { throw DatabaseError(message: "integrity_check: \(result ?? "no answer")") }
        }
        return store
    }
}

final class GRDBEmployeeStore: EmployeeStore {
    let pool: DatabasePool

    init(path: String, synchronous: GRDBEngine.Synchronous) throws {
        pool = try DatabasePool(path: path)
        let level = try pool.writeWithoutTransaction { db -> Int in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue)")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
        }
        let expected = synchronous == .full ? 2 : 1
        guard level == expected else {
            throw DatabaseError(message: "synchronous is \(level), expected \(expected) (\(synchronous.rawValue))")
        }
    }

    static let insertSQL = "INSERT INTO employee (id, name, email, salary, departmentId) VALUES (?, ?, ?, ?, ?)"

    func insertInOneTransaction(_ employees: [Employee]) throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: Self.insertSQL)
            for e in employees {
                statement.setUncheckedArguments([e.id, e.name, e.email, e.salary, e.departmentID])
                try statement.execute()
            }
        }
    }

    /// `DatabasePool.write` from every thread: GRDB's writer queue takes them in turn,
    /// each transaction synced on its own.
    func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>, threads: Int) throws {
        let pool = self.pool
        try onThreads(employees, threads: threads) { share in
            for e in share {
                try pool.write { db in
                    let statement = try db.cachedStatement(sql: Self.insertSQL)
                    statement.setUncheckedArguments([e.id, e.name, e.email, e.salary, e.departmentID])
                    try statement.execute()
                }
            }
        }
    }

    func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>) throws {
        for e in employees {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: Self.insertSQL)
                statement.setUncheckedArguments([e.id, e.name, e.email, e.salary, e.departmentID])
                try statement.execute()
            }
        }
    }

    func fetchNameAndSalary(ids: [Int64]) throws -> Int {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT name, salary FROM employee WHERE id = ?")
            var checksum = 0
            for id in ids {
                statement.setUncheckedArguments([id])
                guard let row = try Row.fetchOne(statement) else { continue }
                let name: String = row[0]
                let salary: Int64 = row[1]
                checksum &+= Employee.fetchChecksum(name: name, salary: salary)
            }
            return checksum
        }
    }

    func count() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM employee") ?? 0 }
    }

    func prepareForReopen() throws {
        // What a well-behaved app leaves behind: the WAL checkpointed into the database.
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    func close() throws { try pool.close() }
}
