import Foundation
import GRDB
import Strata
import StrataLog
import Synchronization

/// History's cost beside SQLite's usual way to keep the same: a history table that
/// triggers on the employee table fill (one row per changed row, with the time).
/// Strata writes one entry per transaction in the commit itself
/// (`StoreOptions.historyTracking`).
public enum HistoryWorkload {
    /// SQLite's history: a table and a trigger per kind of change.
    static let sqliteHistorySQL = """
        CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, kind TEXT NOT NULL, employeeId INTEGER NOT NULL);
        CREATE TRIGGER employee_inserted AFTER INSERT ON employee BEGIN
            INSERT INTO history (at, kind, employeeId) VALUES (julianday('now'), 'insert', NEW.id); END;
        CREATE TRIGGER employee_updated AFTER UPDATE ON employee BEGIN
            INSERT INTO history (at, kind, employeeId) VALUES (julianday('now'), 'update', NEW.id); END;
        CREATE TRIGGER employee_deleted AFTER DELETE ON employee BEGIN
            INSERT INTO history (at, kind, employeeId) VALUES (julianday('now'), 'delete', OLD.id); END;
        """

    static func strataOptions(history: Bool, durability: LogStoreOptions.Durability = .everyCommit) -> StoreOptions {
        var options = StrataObjectEngine.options(durability: durability)
        options.historyTracking = history
        options.historyRetention = .unbounded
        return options
    }

    static func strataStore(in directory: String, history: Bool, durability: LogStoreOptions.Durability = .everyCommit) throws -> ObjectStore {
        try ObjectStore(at: StrataObjectEngine.storePath(in: directory), model: BenchModels.employees(),
                        options: strataOptions(history: history, durability: durability))
    }

    static func sqliteStore(in directory: String, history: Bool) throws -> GRDBEmployeeStore {
        let store = try GRDBEngine(synchronous: .full).create(in: directory)
        guard let grdb = store as? GRDBEmployeeStore else { throw BenchError("not a GRDB store") }
        if history { try grdb.pool.write { db in try db.execute(sql: sqliteHistorySQL) } }
        return grdb
    }

    /// Durable saves of one new employee each, through a context; history on or off.
    public static func strataSaves(_ employees: ArraySlice<Employee>, history: Bool,
                                   durability: LogStoreOptions.Durability = .everyCommit) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("history-saves")
        let store = try strataStore(in: scratch.path, history: history, durability: durability)
        let context = store.newContext()
        return WorkloadIteration(
            run: {
                for e in employees {
                    try StrataObjectEmployeeStore.fill(context.insert("Employee"), with: e)
                    try context.save()
                }
                return employees.count
            },
            finish: { try store.close(); scratch.remove() })
    }

    /// The same on SQLite, FULL, with the trigger-kept history table or without.
    public static func sqliteSaves(_ employees: ArraySlice<Employee>, history: Bool) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("history-saves")
        let store = try sqliteStore(in: scratch.path, history: history)
        return WorkloadIteration(
            run: { try store.insertEachInOwnTransaction(employees); return employees.count },
            finish: { try store.close(); scratch.remove() })
    }

    /// All employees inserted through a context and saved in one durable save, history
    /// on or off: the entry of a save this size is runs of keys, not a change per object.
    public static func strataOneSave(_ employees: [Employee], history: Bool) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("history-one-save")
        let store = try strataStore(in: scratch.path, history: history)
        return WorkloadIteration(
            run: {
                let context = store.newContext()
                for e in employees { try StrataObjectEmployeeStore.fill(context.insert("Employee"), with: e) }
                try context.save()
                return try context.count(for: FetchRequest(entityName: "Employee"))
            },
            finish: { try store.close(); scratch.remove() })
    }

    /// The same in one SQLite transaction, FULL, with the trigger-kept history table or without.
    public static func sqliteOneTransaction(_ employees: [Employee], history: Bool) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("history-one-save")
        let store = try sqliteStore(in: scratch.path, history: history)
        return WorkloadIteration(
            run: { try store.insertInOneTransaction(employees); return try store.count() },
            finish: { try store.close(); scratch.remove() })
    }

    /// Bytes a save of `batch` new employees writes, averaged over `saves` saves:
    /// Strata's segment bytes; SQLite's WAL growth (checkpoints off, so the WAL keeps
    /// every frame written).
    public static func bytesPerSave(strata: Bool, history: Bool, _ employees: [Employee], batch: Int = 100, saves: Int = 20) throws -> Int {
        let scratch = try ScratchDirectory("history-bytes")
        defer { scratch.remove() }
        let chunks = stride(from: 0, to: min(employees.count, batch * saves), by: batch).map { employees[$0..<min(employees.count, $0 + batch)] }
        if strata {
            let store = try strataStore(in: scratch.path, history: history)
            defer { try? store.close() }
            let context = store.newContext()
            let before = store.statistics.segmentBytesWritten
            for chunk in chunks {
                for e in chunk { try StrataObjectEmployeeStore.fill(context.insert("Employee"), with: e) }
                try context.save()
            }
            return (store.statistics.segmentBytesWritten - before) / max(1, chunks.count)
        }
        let store = try sqliteStore(in: scratch.path, history: history)
        defer { try? store.close() }
        try store.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let wal = GRDBEngine.databasePath(in: scratch.path) + "-wal"
        let before = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        for chunk in chunks { try store.insertInOneTransaction(Array(chunk)) }
        let after = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        return (after - before) / max(1, chunks.count)
    }

    /// What the history of `commits` one-object saves takes on disk, then after
    /// `deleteHistory(before:)` of all of it and a compaction: each the segment bytes
    /// of the store with history less those of the same store without, both compacted.
    public static func historyBytes(_ employees: [Employee], commits: Int) throws -> (kept: Int, afterDelete: Int) {
        func segmentBytes(history: Bool, deleting: Bool) throws -> Int {
            let scratch = try ScratchDirectory("history-retention")
            defer { scratch.remove() }
            let store = try strataStore(in: scratch.path, history: history, durability: .none)
            defer { try? store.close() }
            let context = store.newContext()
            for e in employees.prefix(commits) {
                try StrataObjectEmployeeStore.fill(context.insert("Employee"), with: e)
                try context.save()
            }
            if deleting && history { try store.deleteHistory(before: store.currentHistoryToken) }
            guard let log = store.segmentLog else { throw BenchError("the object store is not a segment log") }
            _ = try log.compact(force: true)
            return Int(store.usage.segmentBytes)
        }
        let without = try segmentBytes(history: false, deleting: false)
        return (try segmentBytes(history: true, deleting: false) - without, try segmentBytes(history: true, deleting: true) - without)
    }

    /// A read as of a past token (`snapshot(at:)`): `count` employees batch-inserted with
    /// history on, then `commitsBack` one-object saves that each change one employee's
    /// salary; after them (and a compaction when `compacted`, which leaves the versions
    /// the token needs in compacted segments that reach past it) the store is closed and
    /// opened again. The measured part takes the snapshot as of the token before those
    /// saves, counts its employees, reads the salaries of the employees changed since,
    /// and closes it — work that does not grow with the store, so that what does is the
    /// snapshot's. Returns the count, which must be `count`.
    public static func strataPastSnapshot(count: Int, commitsBack: Int, compacted: Bool) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("history-past")
        let employees = EmployeeData.employees(count: count)
        let step = max(1, count / commitsBack)
        let serials = (0..<commitsBack).map { UInt64(1 + ($0 * step) % count) }
        var token: HistoryToken
        do {
            let store = try strataStore(in: scratch.path, history: true, durability: .none)
            try StrataObjectEmployeeStore.batchInsert(employees, into: store)
            token = store.currentHistoryToken
            let context = store.newContext()
            for (i, serial) in serials.enumerated() {
                guard let id = store.objectID(entityName: "Employee", serial: serial) else { throw BenchError("no object id") }
                let employee = try context.existingObject(with: id)
                try employee.setValue(.int(Int64(-1 - i)), forKey: "salary")
                try context.save()
            }
            if compacted {
                guard let log = store.segmentLog else { throw BenchError("the object store is not a segment log") }
                _ = try log.compact(force: true)
            }
            try store.close()
        }
        let store = try strataStore(in: scratch.path, history: true, durability: .none)
        return WorkloadIteration(
            run: {
                let then = try store.snapshot(at: token)
                let context = then.newContext()
                let total = try context.count(for: FetchRequest(entityName: "Employee"))
                for serial in serials {
                    guard let id = then.objectID(entityName: "Employee", serial: serial) else { throw BenchError("no object id") }
                    let salary = try context.existingObject(with: id).int("salary") ?? -1
                    guard salary >= 0 else { throw BenchError("as of the token, employee \(serial) earns \(salary), a salary set after it") }
                }
                try then.close()
                return total
            },
            finish: { try store.close(); scratch.remove() })
    }

    /// A consumer of `changes(after:)` that stalls while `commits` saves land, then reads
    /// on: whether it got every transaction once, in order.
    public static func stalledFeed(commits: Int) throws -> (delivered: Int, inOrder: Bool) {
        let scratch = try ScratchDirectory("history-feed")
        defer { scratch.remove() }
        let store = try strataStore(in: scratch.path, history: true, durability: .none)
        defer { try? store.close() }
        let start = store.currentHistoryToken
        let context = store.newContext()
        var expected: [UInt64] = []
        for i in 0..<commits {
            let employee = try context.insert("Employee")
            try employee.setValue("e\(i)", forKey: "name")
            try employee.setValue("e\(i)@example.com", forKey: "email")
            try context.save()
            expected.append(store.currentHistoryToken.sequence)
        }
        let delivered = Mutex<[UInt64]>([])
        let done = DispatchSemaphore(value: 0)
        let count = expected.count
        Task {
            var feed = store.changes(after: start).makeAsyncIterator()
            while delivered.withLock({ $0.count }) < count, let next = try? await feed.next() {
                delivered.withLock { $0.append(next.token.sequence) }
            }
            done.signal()
        }
        done.wait()
        let got = delivered.withLock { $0 }
        return (got.count, got == expected)
    }
}
