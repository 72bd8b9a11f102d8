#if Postgres
import Foundation
import PostgresNIO
import Strata
import StrataLog

/// Migrations that rewrite a store on the server: each stage writes the new version of
/// every object into a staging schema beside the store's (`SCHEMA_staging1`, and for a
/// staged plan's later stages `_staging2`…), in batched transactions of its own; blobs
/// stay in the store's table and are carried by id. The swap is one transaction on the
/// connection that holds the store's state row: the store's records, terms, blob
/// references and metadata tables are dropped and the staging schema's moved in
/// (PostgreSQL's DDL is transactional), so other processes see the old store or the
/// new one, never a mixture, and a killed migration leaves the old store as it was.
extension PostgresRecordStore: StagingRecordStore {
    /// The tables a swap replaces; `state`, `blobs` and `serials` stay the store's.
    static let swappedTables = ["records", "terms", "blob_refs", "metadata"]

    package func stagingStore(overlayEntryLimit: Int?) throws -> any StagingRecordStore {
        if let refusal = writeRefusal { throw refusal }
        let root = staging?.root ?? self
        let depth = (staging?.depth ?? 0) + 1
        if depth == 1 {
            writerLock.lock()
            defer { writerLock.unlock() }
            // The lock taken again if the section committed since it last held it: the
            // sequence it reads is the swap's baseline.
            if exclusiveDepth > 0 { try beginLocked() }
            // A migration runs under the store's lock, so no other one is under way:
            // what a killed one left goes first.
            try dropStagingSchemas()
            stagingBaseline = lockedSequence ?? lastSequence
        }
        var location = root.location
        location.schema = "\(root.schema)_staging\(depth)"
        // Numbered past everything the store holds: a version the migration writes never
        // looks older than one it replaces.
        return try PostgresRecordStore(location: location, readOnly: false, logger: logger,
                                       staging: (root: root, depth: depth, sequence: lastSequence))
    }

    /// Swaps `staging`'s tables in, in one transaction under the store's lock (the one
    /// the migration holds, or a new one), and reads the new metadata.
    package func adopt(staging: any StagingRecordStore) throws {
        guard let staging = staging as? PostgresRecordStore, staging.staging?.root === self else {
            throw StrataError(.invalidArgument, "only a staging store made from this store can replace its contents", path: path)
        }
        if let refusal = writeRefusal { throw refusal }
        let from = staging.schema
        let stagingSequence = staging.lastSequence
        try staging.close()
        defer { pendingGeneration.withLock { $0 = nil } }
        try withWriteTransaction(checkingGeneration: false) { link, locked in
            let startedAt = stagingBaseline ?? 0
            guard locked == startedAt else {
                throw StrataError(.migrationFailed, "the store took commits while the migration ran (sequence \(startedAt) when it began, \(locked) now); nothing was swapped in: migrate again", path: path,
                                  context: ["began": "\(startedAt)", "now": "\(locked)"])
            }
            // Other processes on the old model are refused from their next commit on.
            _ = try bumpGeneration(on: link)
            try link.query("DROP TABLE \(Self.swappedTables.map { "\(schema).\($0)" }.joined(separator: ", "))")
            for table in Self.swappedTables {
                try link.query("ALTER TABLE \(from).\(table) SET SCHEMA \(schema)")
            }
            // Serials reserved by other processes stay reserved; ones the migration used
            // past them move the store's counters on.
            try link.query("""
                INSERT INTO \(schema).serials AS s (tag, next) SELECT tag, next FROM \(from).serials
                ON CONFLICT (tag) DO UPDATE SET next = greatest(s.next, excluded.next)
                """)
            for leftover in try stagingSchemas(on: link) {
                try link.query("DROP SCHEMA \(leftover) CASCADE")
            }
            // Sequences never go back: the swap is a commit numbered past both stores'.
            let sequence = max(locked, stagingSequence) + 1
            var binds = PostgresBindings()
            binds.append(Int64(bitPattern: sequence))
            binds.append(listener.channel)
            binds.append(String(sequence))
            try link.query("WITH moved AS (UPDATE \(schema).state SET sequence = $1 WHERE id = 1) SELECT pg_notify($2, $3)", binds)
            return false
        }
        writerLock.withLock { stagingBaseline = nil }
        logger.info("migration swapped in", metadata: ["store": "\(path)", "from": "\(from)"])
        do {
            try reloadMetadata()
        } catch var error as StrataError {
            // The swap is committed: the store is migrated, whatever this read says.
            error.message = "the migration was swapped in, but reading the store's metadata afterwards failed: open the store again (\(error.message))"
            throw error
        }
    }

    /// This store: the swap changed its tables, not its connections.
    package func reopenedAfterAdopting() throws -> any RecordStore { self }

    package func discardStagingStores() {
        writerLock.withLock { stagingBaseline = nil }
        do {
            try dropStagingSchemas()
        } catch {
            logger.warning("a migration's staging schemas could not be dropped; the next migration drops them", metadata: ["error": "\(error)", "store": "\(path)"])
        }
    }

    /// The staging schemas on the server, leftovers of a killed migration included.
    package func stagingSchemaNames() throws -> [String] {
        try read { try stagingSchemas(on: $0) }
    }

    func dropStagingSchemas() throws {
        try pool.with { link in
            for leftover in try stagingSchemas(on: link) {
                try link.query("DROP SCHEMA IF EXISTS \(leftover) CASCADE")
            }
        }
    }

    /// The staging schemas made from this store's root store, leftovers included:
    /// schemas named `ROOT_stagingN` whose state row carries the store's id (a schema
    /// of that name holding anything else is left alone).
    func stagingSchemas(on link: PostgresLink) throws -> [String] {
        let root = staging?.root.schema ?? schema
        var binds = PostgresBindings()
        binds.append("^\(root)_staging[0-9]+$")  // an identifier: letters, digits and _
        let names = try link.query("SELECT nspname::text FROM pg_namespace WHERE nspname ~ $1", binds).map { try $0.decode(String.self) }
        return try names.filter { name in
            guard PostgresLocation.isIdentifier(name) else { return false }
            guard try PostgresTables.exists(schema: name, on: link) else { return false }
            let id = try link.query("SELECT store_id FROM \(name).state WHERE id = 1").first.map { try $0.decode(ByteBuffer.self).bytes }
            return id == storeID
        }
    }

    /// A file in a temporary directory of this store's, removed when it closes.
    package func scratchFile(named name: String) throws -> any StorageFile {
        let fileSystem = POSIXFileSystem()
        let directory = try scratchDirectory.withLock { directory -> String in
            if let directory { return directory }
            let made = NSTemporaryDirectory() + "strata-staging-\(UUID().uuidString)"
            try fileSystem.createDirectory(made)
            directory = made
            return made
        }
        let file = directory + "/" + name
        try fileSystem.remove(file)
        return try fileSystem.open(file, mode: .create)
    }

    func removeScratchDirectory() {
        if let directory = scratchDirectory.withLock({ d -> String? in defer { d = nil }; return d }) {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
#endif
