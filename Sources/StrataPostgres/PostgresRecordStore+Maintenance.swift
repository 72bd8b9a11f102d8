#if Postgres
import NIOCore
import PostgresNIO
import StrataLog

extension PostgresRecordStore {
    /// Checks what PostgreSQL's own constraints do not: every record's blob
    /// references name a blob of that length and checksum, every term and blob
    /// reference belongs to a record, and the blob references decode. The server
    /// checks its pages itself (`data_checksums`).
    package func verify() throws -> VerifyReport {
        var report = VerifyReport()
        try scanPages(nil, batchSize: 512, withTerms: false) { page in
            for record in page {
                report.recordsChecked += 1
                report.bytesChecked += Int64(record.value.count)
                for blob in record.blobs {
                    do {
                        _ = try readBlob(blob)
                        report.blobsChecked += 1
                    } catch let error as StrataError where error.code == .corrupt {
                        var problem = error
                        problem.context["key"] = "\(record.key)"
                        report.problems.append(problem)
                    }
                }
            }
            return true
        }
        try read { link in
            let orphanTerms = try link.query("SELECT count(*) FROM \(schema).terms t WHERE NOT EXISTS (SELECT 1 FROM \(schema).records r WHERE r.key = t.key)")
                .first?.decode(Int64.self) ?? 0
            if orphanTerms > 0 {
                report.problems.append(StrataError(.corrupt, "\(orphanTerms) index entries belong to no record", path: path))
            }
            let orphanRefs = try link.query("SELECT count(*) FROM \(schema).blob_refs b WHERE NOT EXISTS (SELECT 1 FROM \(schema).records r WHERE r.key = b.key)")
                .first?.decode(Int64.self) ?? 0
            if orphanRefs > 0 {
                report.problems.append(StrataError(.corrupt, "\(orphanRefs) blob references belong to no record", path: path))
            }
        }
        report.segmentsChecked = 1
        return report
    }

    /// The tables' sizes as the server reports them: `segmentBytes` is the records'
    /// and terms' tables with their indexes, `blobBytes` the blobs'. When the server
    /// cannot be asked: zeros, and a warning in the log; once the store is closed,
    /// zeros without one (a service's last sample of its gauges comes after the close).
    package var usage: StoreUsage {
        do {
            return try measuredUsage()
        } catch {
            if closedFlag.withLock({ $0 }) { return StoreUsage() }
            logger.warning("the store's usage could not be read", metadata: ["error": "\(error)", "store": "\(path)"])
            return StoreUsage()
        }
    }

    private func measuredUsage() throws -> StoreUsage {
        try read { link -> StoreUsage in
            let row = try link.query("""
                SELECT pg_total_relation_size('\(schema).records') + pg_total_relation_size('\(schema).terms'),
                       (SELECT coalesce(sum(octet_length(value) + octet_length(blobs)), 0)::bigint FROM \(schema).records),
                       pg_total_relation_size('\(schema).blobs'),
                       (SELECT coalesce(sum(octet_length(b.bytes)), 0)::bigint FROM \(schema).blobs b
                         WHERE EXISTS (SELECT 1 FROM \(schema).blob_refs r WHERE r.blob = b.id)),
                       (SELECT count(*) FROM \(schema).blobs)
                """).first
            guard let row else { return StoreUsage() }
            let (tables, live, blobTable, liveBlobs, blobCount) = try row.decode((Int64, Int64, Int64, Int64, Int64).self)
            return StoreUsage(segmentCount: 1, segmentBytes: tables, liveRecordBytes: live, recordBytes: live,
                              blobFileCount: Int(blobCount), blobBytes: blobTable, liveBlobBytes: liveBlobs)
        }
    }

    /// Deletes blobs no record references (older than a minute unless `force`: a blob
    /// written outside a commit's transaction may be waiting for its commit), then
    /// has PostgreSQL vacuum the tables. Superseded versions need no compaction here:
    /// an update replaces its row, and the server's autovacuum reclaims the space.
    package func compact(force: Bool) throws -> CompactionReport {
        if let refusal = writeRefusal { throw refusal }
        let started = ContinuousClock.now
        var report = CompactionReport()
        let age = force ? "0 seconds" : "1 minute"
        try withWriteTransaction { link, _ in
            let row = try link.query("""
                WITH gone AS (
                    DELETE FROM \(schema).blobs b
                    WHERE b.created < now() - interval '\(age)' AND NOT EXISTS (SELECT 1 FROM \(schema).blob_refs r WHERE r.blob = b.id)
                    RETURNING octet_length(b.bytes) AS length)
                SELECT count(*), coalesce(sum(length), 0)::bigint FROM gone
                """).first
            if let row {
                let (collected, bytes) = try row.decode((Int64, Int64).self)
                report.blobFilesCollected = Int(collected)
                report.blobBytesReclaimed = bytes
            }
            return false
        }
        try read { link in
            for table in ["records", "terms", "blobs", "blob_refs"] { try link.query("VACUUM \(schema).\(table)") }
        }
        report.steps = 1
        report.duration = ContinuousClock.now - started
        count {
            $0.compactions += 1
            $0.compactionBytesReclaimed += Int(report.blobBytesReclaimed)
        }
        return report
    }
}
#endif

#if Postgres
extension PostgresRecordStore {
    /// Ends the server connections that listen for this store's commits (other
    /// processes' included): tests cut them to check that feeds catch up.
    /// How many connections to the server, this call's aside, last ran a statement
    /// naming `schema`'s tables: tests check that a closed store leaves none open.
    package func connectionCount(touching schema: String) throws -> Int {
        try read { link in
            var binds = PostgresBindings()
            binds.append("%\(schema).%")
            let rows = try link.query("SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE $1", binds)
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
    }

    package func terminateListeningConnections() throws {
        _ = try read { link in
            try link.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN %'")
        }
    }
}
#endif

#if Postgres
extension PostgresRecordStore {
    /// A digest of everything the store holds but its blobs' bytes — records, terms,
    /// blob references, metadata, the sequence — and of how many staging schemas it
    /// has: tests compare it across a refused or killed migration, which must leave
    /// the store as it was.
    package func contentDigest() throws -> String {
        let s = schema
        return try read { link in
            let rows = try link.query("""
                SELECT md5(concat_ws('|',
                  (SELECT string_agg(key || ':' || sequence || ':' || md5(value) || md5(blobs), ',' ORDER BY key) FROM \(s).records),
                  (SELECT string_agg(index || ':' || md5(value) || ':' || key, ',' ORDER BY index, value, key) FROM \(s).terms),
                  (SELECT string_agg(key || ':' || blob, ',' ORDER BY key, blob) FROM \(s).blob_refs),
                  (SELECT string_agg(name || ':' || md5(value), ',' ORDER BY name) FROM \(s).metadata),
                  (SELECT sequence::text FROM \(s).state),
                  (SELECT count(*)::text FROM pg_namespace WHERE nspname ~ '^\(s)_staging[0-9]+$')))
                """)
            return try rows.first?.decode(String.self) ?? ""
        }
    }

    /// Deletes the store: drops its schema and everything in it, then closes. Other
    /// processes that have it open fail from then on.
    public func dropStore() throws {
        _ = try read { link in try link.query("DROP SCHEMA \(schema) CASCADE") }
        try close()
    }
}
#endif
