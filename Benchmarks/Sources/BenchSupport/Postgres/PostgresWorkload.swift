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
