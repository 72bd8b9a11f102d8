#if Postgres
import Strata

extension StoreOptions.StoreType {
    /// Records on a PostgreSQL server: the store opened at `postgres://…` (see
    /// ``PostgresRecordStore``) lives in one schema of that database, and several
    /// processes may write it.
    ///
    /// ```swift
    /// var options = StoreOptions()
    /// options.storeType = .postgres
    /// let store = try ObjectStore(at: "postgres://app@db.internal/app?schema=todos", model: model, options: options)
    /// ```
    public static let postgres = StoreOptions.StoreType.custom("postgres") { location, options in
        try PostgresRecordStore(location: location, readOnly: options.log.readOnly, logger: options.logger)
    }
}
#endif
