import Foundation
import Logging
import Strata
import StrataPostgres

/// The PostgreSQL store type's workloads: the same employee stores and calls as the
/// local object layer's (`StrataObjectEmployeeStore`), over `StoreType.postgres`.
public enum PostgresWorkload {
    /// The location of a fresh schema on the server at `server` (a postgres:// location
    /// without a schema).
    public static func location(_ server: String, name: String) -> String {
        server + (server.contains("?") ? "&" : "?") + "schema=" + name + "_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    static func options() -> StoreOptions {
        var options = StrataObjectEngine.options()
        options.storeType = .postgres
        return options
    }

    /// An employee store in a new schema, written through contexts or batch inserts.
    public static func create(at location: String, writer: StrataObjectEngine.Writer) throws -> any EmployeeStore {
        try StrataObjectEmployeeStore(store: ObjectStore(at: location, model: BenchModels.employees(), options: options()), writer: writer)
    }

    /// What a service process does with a store already on the server, the work that
    /// must not grow with the store: opens it, reads `name` of `lookups` employees by
    /// id (serials 1…`count`, spread evenly), saves `saves` new ones one at a time,
    /// counts the entity, closes. Returns the count.
    public static func serve(_ location: String, count: Int, lookups: Int, saves: [Employee]) throws -> Int {
        let store = try ObjectStore(at: location, model: BenchModels.employees(), options: options())
        defer { try? store.close() }
        let context = store.newContext()
        for i in 0..<lookups {
            let serial = UInt64(i * max(1, count / max(1, lookups)) % count + 1)
            guard let id = store.objectID(entityName: "Employee", serial: serial) else { throw BenchError("no id for serial \(serial)") }
            guard try context.object(with: id).string("name") != nil else { throw BenchError("employee \(serial) has no name") }
            if i % 256 == 255 { context.reset() }
        }
        for e in saves {
            try StrataObjectEmployeeStore.fill(context.insert("Employee"), with: e)
            try context.save()
        }
        return try store.newContext().count(for: FetchRequest(entityName: "Employee"))
    }

    /// Opens the store at `location` with `model`, inferring a migration: the time of
    /// an in-place lightweight stage.
    public static func migrate(_ location: String, to model: ObjectModel) throws {
        var options = options()
        options.migration = .inferred
        let store = try ObjectStore(at: location, model: model, options: options)
        try store.close()
    }

    /// Drops a schema the workloads made.
    public static func drop(_ location: String) throws {
        let records = try PostgresRecordStore(location: location)
        defer { try? records.close() }
        try records.dropStore()
    }
}

extension PostgresWorkload {
    /// A store of employees with history tracking, so that other processes can follow
    /// its commits (`changes(after:)`).
    public static func createFollowed(at location: String) throws -> ObjectStore {
        var options = options()
        options.historyTracking = true
        return try ObjectStore(at: location, model: BenchModels.employees(), options: options)
    }

    /// The follower's side, in a process of its own: opens the store at `location`,
    /// prints `READY` once its feed is listening, then for each transaction that
    /// arrives the wall-clock time it arrived (seconds since 1970) and the changes seen
    /// so far, until `changes` have arrived.
    public static func follow(_ location: String, changes: Int) async throws {
        let store = try createFollowed(at: location)
        defer { try? store.close() }
        var seen = 0
        let feed = store.changes(after: store.currentHistoryToken)
        // Unbuffered writes: the other side reads them as they come.
        FileHandle.standardOutput.write(Data("READY\n".utf8))
        for try await transaction in feed {
            seen += transaction.changes.count
            FileHandle.standardOutput.write(Data(String(format: "ARRIVED %.6f %d\n", Date().timeIntervalSince1970, seen).utf8))
            if seen >= changes { return }
        }
    }

    /// One new employee saved through a context in `store`; returns the wall-clock time
    /// the save returned (seconds since 1970).
    public static func saveOne(_ employee: Employee, in store: ObjectStore) throws -> Double {
        let context = store.newContext()
        try StrataObjectEmployeeStore.fill(context.insert("Employee"), with: employee)
        try context.save()
        return Date().timeIntervalSince1970
    }
}

extension PostgresWorkload {
    /// ``follow(_:changes:)`` from synchronous code (BenchSummary's `--follow`):
    /// returns the process's exit status.
    public static func followUntilDone(_ location: String, changes: Int) -> Int32 {
        final class Outcome: @unchecked Sendable {
            // @unchecked: written by the task before it signals, read after the wait.
            var status: Int32 = 1
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await follow(location, changes: changes)
                outcome.status = 0
            } catch {
                FileHandle.standardError.write(Data("follow failed: \(error)\n".utf8))
            }
            done.signal()
        }
        done.wait()
        return outcome.status
    }
}
