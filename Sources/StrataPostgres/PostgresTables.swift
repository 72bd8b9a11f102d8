#if Postgres
import PostgresNIO
import StrataLog

/// The tables of one store, in a schema of its own (docs/POSTGRES.md):
///
/// - `state`: one row — the last committed sequence, the store's id, the layout
///   version, and the metadata's generation (moved on by every change of the
///   metadata: a migration). Every commit locks it (`FOR UPDATE`), so commits are
///   serialised in sequence order across processes and sequences have no gaps, and a
///   process whose model another one migrated away learns it at its next commit.
/// - `metadata`: the object layer's metadata (model hash, tags, the model).
/// - `records`: each key's current version (`key` sorts as the key does).
/// - `terms`: index entries (index, value, key) of current versions; its primary key
///   is the B-tree that index reads, ranges and ordered pages walk.
/// - `blobs`, `blob_refs`: blob bytes by id, and which record references which.
/// - `serials`: the next object serial per tag, reserved by writers a block at a time.
enum PostgresTables {
    /// The layout of the tables, recorded in `state`: a store of another layout is
    /// refused rather than misread.
    static let version: Int32 = 2

    static func create(schema s: String) -> [String] {
        [
            "CREATE SCHEMA IF NOT EXISTS \(s)",
            "CREATE TABLE \(s).state (id integer PRIMARY KEY CHECK (id = 1), sequence bigint NOT NULL, store_id bytea NOT NULL, version integer NOT NULL, metadata_generation bigint NOT NULL DEFAULT 0)",
            "CREATE TABLE \(s).metadata (name text PRIMARY KEY, value bytea NOT NULL)",
            "CREATE TABLE \(s).records (key bigint PRIMARY KEY, sequence bigint NOT NULL, value bytea NOT NULL, blobs bytea NOT NULL)",
            "CREATE TABLE \(s).terms (index integer NOT NULL, value bytea NOT NULL, key bigint NOT NULL, PRIMARY KEY (index, value, key))",
            "CREATE INDEX terms_by_key ON \(s).terms (key)",
            "CREATE TABLE \(s).blobs (id bigserial PRIMARY KEY, bytes bytea NOT NULL, created timestamptz NOT NULL DEFAULT now())",
            "CREATE TABLE \(s).blob_refs (key bigint NOT NULL, blob bigint NOT NULL, PRIMARY KEY (key, blob))",
            "CREATE INDEX blob_refs_by_blob ON \(s).blob_refs (blob)",
            "CREATE TABLE \(s).serials (tag integer PRIMARY KEY, next bigint NOT NULL)",
        ]
    }

    /// Creates the store's tables unless they exist; two processes creating one store
    /// at once take turns on an advisory lock named after the schema.
    static func ensure(schema: String, on link: PostgresLink, readOnly: Bool) throws {
        if try exists(schema: schema, on: link) { return }
        if readOnly { throw StrataError(.notFound, "no store in schema \(schema), and a read-only open creates none") }
        try link.query("BEGIN")
        do {
            var binds = PostgresBindings()
            binds.append("strata." + schema)
            try link.query("SELECT pg_advisory_xact_lock(hashtext($1))", binds)
            if try !exists(schema: schema, on: link) {
                for statement in create(schema: schema) { try link.query(statement) }
                var insert = PostgresBindings()
                insert.appendBytes((0..<16).map { _ in UInt8.random(in: 0...255) })
                insert.append(version)
                try link.query("INSERT INTO \(schema).state (id, sequence, store_id, version) VALUES (1, 0, $1, $2)", insert)
            }
            try link.query("COMMIT")
        } catch {
            _ = try? link.query("ROLLBACK")
            throw error
        }
    }

    /// Creates the tables of a migration's staging store in `schema`, dropping what a
    /// migration that never finished left there, in one transaction: its id is the
    /// store's, and its sequence starts at the store's, so that every version it writes
    /// is numbered past the store's. Blobs stay in the store's own table.
    static func createStaging(schema: String, storeID: [UInt8], sequence: UInt64, on link: PostgresLink) throws {
        try link.query("BEGIN")
        do {
            try link.query("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            for statement in create(schema: schema) { try link.query(statement) }
            var insert = PostgresBindings()
            insert.append(Int64(bitPattern: sequence))
            insert.appendBytes(storeID)
            insert.append(version)
            try link.query("INSERT INTO \(schema).state (id, sequence, store_id, version) VALUES (1, $1, $2, $3)", insert)
            try link.query("COMMIT")
        } catch {
            _ = try? link.query("ROLLBACK")
            throw error
        }
    }

    /// Brings tables of layout 1 to this layout (the state row's metadata
    /// generation), once, under the advisory lock that creation takes; a read-only
    /// open cannot, and is refused.
    static func upgrade(schema: String, from version: Int32, on link: PostgresLink, readOnly: Bool) throws {
        guard version == 1 else { return }
        if readOnly {
            throw StrataError(.unsupportedFormat, "the store's tables are of layout version 1: open it once for writing, which brings them to \(self.version)")
        }
        try link.query("BEGIN")
        do {
            var binds = PostgresBindings()
            binds.append("strata." + schema)
            try link.query("SELECT pg_advisory_xact_lock(hashtext($1))", binds)
            try link.query("ALTER TABLE \(schema).state ADD COLUMN IF NOT EXISTS metadata_generation bigint NOT NULL DEFAULT 0")
            var update = PostgresBindings()
            update.append(self.version)
            try link.query("UPDATE \(schema).state SET version = $1 WHERE id = 1", update)
            try link.query("COMMIT")
        } catch {
            _ = try? link.query("ROLLBACK")
            throw error
        }
    }

    static func exists(schema: String, on link: PostgresLink) throws -> Bool {
        // A query of pg_class, not `to_regclass`: the name lookup goes through the
        // session's catalog cache, which an advisory lock does not refresh, so after
        // waiting for another open's creation it could still answer that no table
        // exists. A query reads the catalog in the statement's own snapshot.
        var binds = PostgresBindings()
        binds.append(schema)
        let rows = try link.query("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = 'state')", binds)
        return try rows.first?.decode(Bool.self) ?? false
    }
}
#endif
