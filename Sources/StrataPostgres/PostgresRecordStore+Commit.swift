#if Postgres
import Foundation
import NIOCore
import PostgresNIO
import StrataLog

extension PostgresRecordStore {
    /// Runs `body` holding the store's `state` row in an open transaction: commits
    /// of other processes wait until `body`'s own commit (which ends the transaction)
    /// or its end. A read-only store runs `body` as it is.
    package func exclusively<T>(_ body: () throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        exclusiveDepth += 1
        defer {
            exclusiveDepth -= 1
            if exclusiveDepth == 0 { rollbackIfOpen() }
        }
        if exclusiveDepth == 1 && writeRefusal == nil { try beginLocked() }
        return try body()
    }

    /// Opens a transaction on the writer and locks the state row; `writerLock` held.
    func beginLocked() throws {
        guard lockedSequence == nil else { return }
        let link = try liveWriter()
        try link.query("BEGIN")
        do {
            guard let row = try link.query("SELECT sequence, metadata_generation FROM \(schema).state WHERE id = 1 FOR UPDATE").first else {
                throw StrataError(.corrupt, "the store's state row is missing", path: path)
            }
            let (sequence, generation) = try row.decode((Int64, Int64).self)
            // A damaged or edited row is refused, not a trap.
            guard sequence >= 0 else { throw StrataError(.corrupt, "the store's state row holds sequence \(sequence)", path: path) }
            lockedSequence = UInt64(sequence)
            lockedGeneration = generation
        } catch {
            _ = try? link.query("ROLLBACK")
            throw error
        }
    }

    /// Moves the metadata generation on in the open transaction and returns it; this
    /// process's reads accept it from now on (``pendingGeneration``), its caller makes
    /// it the known one once the transaction commits.
    func bumpGeneration(on link: PostgresLink) throws -> Int64 {
        guard let row = try link.query("UPDATE \(schema).state SET metadata_generation = metadata_generation + 1 WHERE id = 1 RETURNING metadata_generation").first else {
            throw StrataError(.corrupt, "the store's state row is missing", path: path)
        }
        let generation = try row.decode(Int64.self)
        pendingGeneration.withLock { $0 = generation }
        return generation
    }

    /// Ends an open transaction without committing; `writerLock` held.
    func rollbackIfOpen() {
        guard lockedSequence != nil else { return }
        lockedSequence = nil
        _ = try? writerLink.withLock { $0 }.query("ROLLBACK")
    }

    /// The writer connection, connected again if it dropped while no transaction was
    /// open on it; `writerLock` held.
    func liveWriter() throws -> PostgresLink {
        let link = writerLink.withLock { $0 }
        guard link.isClosed else { return link }
        if lockedSequence != nil {
            lockedSequence = nil
            throw StrataError(.io, "PostgreSQL: the connection dropped during a transaction; nothing of it was committed", path: path)
        }
        let fresh = try PostgresLink.connect(to: location, logger: logger)
        writerLink.withLock { $0 = fresh }
        return fresh
    }

    /// Runs `body` in a transaction that holds the state row (the open one of
    /// ``exclusively(_:)``, or a new one), then commits; `body` gets the sequence the
    /// lock read and returns whether it used the next one.
    ///
    /// Refused with `.incompatibleModel` when another process changed the metadata
    /// since this one read it (a migration): what this process writes is encoded by a
    /// model the store no longer has (`checkingGeneration` false for the writes of
    /// metadata and of a migration's swap, which check for themselves).
    @discardableResult
    func withWriteTransaction(checkingGeneration: Bool = true, _ body: (PostgresLink, UInt64) throws -> Bool) throws -> UInt64 {
        writerLock.lock()
        defer { writerLock.unlock() }
        try beginLocked()
        guard let locked = lockedSequence else { throw StrataError(.io, "PostgreSQL: no transaction is open", path: path) }
        let link = try liveWriter()
        do {
            if checkingGeneration, lockedGeneration != knownGeneration.withLock({ $0 }) {
                throw StrataError(.incompatibleModel, "another process migrated the store since it was opened here (its model or record layouts changed): open it again", path: path)
            }
            let advanced = try body(link, locked)
            let sequence = advanced ? locked + 1 : locked
            if advanced {
                // One round trip: the sequence moves and the other processes are told.
                var binds = PostgresBindings()
                binds.append(Int64(bitPattern: sequence))
                binds.append(listener.channel)
                binds.append(String(sequence))
                try link.query("WITH moved AS (UPDATE \(schema).state SET sequence = $1 WHERE id = 1) SELECT pg_notify($2, $3)", binds)
            }
            // Whatever COMMIT answers, the transaction is over.
            lockedSequence = nil
            let answer: PostgresQueryResult
            do {
                answer = try link.query("COMMIT")
            } catch let error as StrataError where error.context["sqlState"] == nil {
                // No answer from the server (the connection went): it may have committed
                // before the connection dropped. Saying "failed" could make a caller
                // write the same thing again; the store is what knows.
                var unknown = StrataError(.io, "PostgreSQL: the connection was lost while the transaction committed, so whether it was committed is unknown: read the store to find out (\(error.message))",
                                          path: path, context: error.context)
                unknown.context["outcome"] = "unknown"
                unknown.context["sequence"] = "\(sequence)"
                throw unknown
            }
            // A transaction an error had already aborted answers COMMIT with ROLLBACK.
            guard answer.metadata.command == "COMMIT" else {
                throw StrataError(.io, "PostgreSQL rolled the commit back (\(answer.metadata.command))", path: path)
            }
            knownSequence.withLock { $0 = max($0, sequence) }
            // This process's own commit during its migration's staging keeps the swap's
            // baseline; another process's commit between them does not.
            if let baseline = stagingBaseline, baseline == locked { stagingBaseline = sequence }
            // Inside ``exclusively(_:)`` the rest of the section stays exclusive: its
            // next read or commit takes the lock again (``onTransactionOrPool(_:)``,
            // ``beginLocked()``), so a section that commits page by page reads each
            // page under the lock, and one that ends with its commit (a save) costs no
            // further transaction.
            return sequence
        } catch {
            rollbackIfOpen()
            throw error
        }
    }

    package func commit(_ batch: WriteBatch) throws -> UInt64 {
        if let refusal = writeRefusal { throw refusal }
        // Nothing to write: no transaction, as on the segment log.
        if batch.isEmpty { return lastSequence }
        let sequence = try withWriteTransaction { link, locked in
            try write(batch, sequence: locked + 1, on: link)
            return true
        }
        count { $0.commits += 1 }
        return sequence
    }

    /// One transaction handed over in chunks, each written as it comes: the server
    /// holds the transaction, this process one chunk.
    package func commit(chunks produce: (inout WriteBatch, _ writeBlob: ([UInt8]) throws -> BlobRef) throws -> Bool) throws -> UInt64 {
        if let refusal = writeRefusal { throw refusal }
        var wrote = false
        let sequence = try withWriteTransaction { link, locked in
            var more = true
            while more {
                var batch = WriteBatch()
                more = try produce(&batch) { try self.writeBlob($0) }
                wrote = wrote || !batch.isEmpty
                try write(batch, sequence: locked + 1, on: link)
            }
            // Nothing produced: no transaction, as on the segment log.
            return wrote
        }
        if wrote { count { $0.commits += 1 } }
        return sequence
    }

    /// Writes a batch's records as versions of `sequence`: the last write of a key in
    /// the batch is the one that counts; a key's terms and blob references are
    /// replaced with its new version's.
    func write(_ batch: WriteBatch, sequence: UInt64, on link: PostgresLink) throws {
        guard !batch.isEmpty else { return }
        let records = try batch.records(completedWith: sequence)
        var last: [RecordKey: Int] = [:]
        last.reserveCapacity(records.count)
        for (i, record) in records.enumerated() { last[record.key] = i }
        let sequenceColumn = Int64(bitPattern: sequence)
        var written: [Int64] = [], removed: [Int64] = []
        var keys: [Int64] = [], values: [ByteBuffer] = [], blobs: [ByteBuffer] = []
        var termIndexes: [Int32] = [], termValues: [ByteBuffer] = [], termKeys: [Int64] = []
        var refKeys: [Int64] = [], refBlobs: [Int64] = []
        for (i, record) in records.enumerated() where last[record.key] == i {
            let key = PostgresCoding.column(record.key)
            written.append(key)
            if record.isTombstone {
                removed.append(key)
                continue
            }
            keys.append(key)
            values.append(ByteBuffer(bytes: record.value))
            blobs.append(ByteBuffer(bytes: PostgresCoding.encode(record.blobs)))
            for term in record.terms {
                termIndexes.append(Int32(bitPattern: term.index))
                termValues.append(ByteBuffer(bytes: term.value))
                termKeys.append(key)
            }
            for blob in record.blobs {
                refKeys.append(key)
                refBlobs.append(Int64(bitPattern: blob.offset))
            }
        }
        // Two round trips whatever the batch holds: the keys' old terms and blob
        // references go, then the new versions, terms and references go in, each
        // statement's parts as data-modifying CTEs over one table each (the parts of
        // one statement do not see each other's rows, so the deletes come first).
        var removals = PostgresBindings()
        removals.append(written)
        var deletes = ["gone_terms AS (DELETE FROM \(schema).terms WHERE key = ANY($1))"]
        if !removed.isEmpty {
            removals.append(removed)
            deletes.append("gone_records AS (DELETE FROM \(schema).records WHERE key = ANY($2))")
        }
        try link.query("WITH \(deletes.joined(separator: ", ")) DELETE FROM \(schema).blob_refs WHERE key = ANY($1)", removals)

        var binds = PostgresBindings()
        var inserts: [String] = []
        func parameter(_ append: (inout PostgresBindings) -> Void) -> String {
            append(&binds)
            return "$\(binds.count)"
        }
        if !keys.isEmpty {
            let (k, q, v, b) = (parameter { $0.append(keys) }, parameter { $0.append(sequenceColumn) },
                                parameter { $0.append(values) }, parameter { $0.append(blobs) })
            inserts.append("""
                INSERT INTO \(schema).records (key, sequence, value, blobs)
                SELECT key, \(q), value, blobs FROM unnest(\(k)::bigint[], \(v)::bytea[], \(b)::bytea[]) AS w(key, value, blobs)
                ON CONFLICT (key) DO UPDATE SET sequence = excluded.sequence, value = excluded.value, blobs = excluded.blobs
                """)
        }
        if !termKeys.isEmpty {
            let (i, v, k) = (parameter { $0.append(termIndexes) }, parameter { $0.append(termValues) }, parameter { $0.append(termKeys) })
            inserts.append("INSERT INTO \(schema).terms (index, value, key) SELECT * FROM unnest(\(i)::integer[], \(v)::bytea[], \(k)::bigint[]) ON CONFLICT DO NOTHING")
        }
        if !refKeys.isEmpty {
            let (k, r) = (parameter { $0.append(refKeys) }, parameter { $0.append(refBlobs) })
            inserts.append("INSERT INTO \(schema).blob_refs (key, blob) SELECT * FROM unnest(\(k)::bigint[], \(r)::bigint[]) ON CONFLICT DO NOTHING")
        }
        guard let last = inserts.popLast() else { return }
        let parts = inserts.enumerated().map { "part\($0.offset) AS (\($0.element))" }
        try link.query(parts.isEmpty ? last : "WITH \(parts.joined(separator: ", ")) \(last)", binds)
    }

    package func reserveSerials(tag: UInt16, count: Int, floor: UInt64) throws -> UInt64? {
        if let refusal = writeRefusal { throw refusal }
        guard count >= 0, floor < UInt64(Int64.max) - UInt64(count) else {
            throw StrataError(.invalidArgument, "cannot reserve \(count) object ids of tag \(tag) from \(floor)")
        }
        var binds = PostgresBindings()
        binds.append(Int32(tag))
        binds.append(Int64(floor))
        binds.append(Int64(count))
        let first = try pool.with { link in
            try link.query("""
                INSERT INTO \(schema).serials AS s (tag, next) VALUES ($1, $2 + $3)
                ON CONFLICT (tag) DO UPDATE SET next = greatest(s.next, $2) + $3
                RETURNING next - $3
                """, binds).first.map { try $0.decode(Int64.self) }
        }
        guard let first, first >= 0 else { throw StrataError(.corrupt, "the serial counter of tag \(tag) is damaged", path: path) }
        return UInt64(first)
    }

    // MARK: Blobs

    package func writeBlob(_ bytes: [UInt8]) throws -> BlobRef {
        if let refusal = writeRefusal { throw refusal }
        var binds = PostgresBindings()
        binds.appendBytes(bytes)
        let id = try onTransactionOrPool { link in
            try link.query("INSERT INTO \(blobSchema).blobs (bytes) VALUES ($1) RETURNING id", binds).first.map { try $0.decode(Int64.self) }
        }
        guard let id else { throw StrataError(.io, "PostgreSQL: a blob insert returned no id", path: path) }
        count {
            $0.blobsWritten += 1
            $0.blobBytesWritten += bytes.count
        }
        return BlobRef(file: 0, offset: UInt64(id), length: UInt64(bytes.count), checksum: CRC32C.checksum(bytes))
    }

    package func readBlob(_ ref: BlobRef) throws -> [UInt8] {
        try checkOpen()
        var binds = PostgresBindings()
        binds.append(Int64(bitPattern: ref.offset))
        let bytes = try onTransactionOrPool { link in
            try link.query("SELECT bytes FROM \(blobSchema).blobs WHERE id = $1", binds).first.map { try $0.decode(ByteBuffer.self).bytes }
        }
        guard let bytes else { throw StrataError(.corrupt, "blob \(ref.offset) is missing", path: path, context: ["blob": "\(ref.offset)"]) }
        guard ref.file == 0, UInt64(bytes.count) == ref.length, CRC32C.checksum(bytes) == ref.checksum else {
            throw StrataError(.corrupt, "blob \(ref.offset) does not match its reference (length \(bytes.count), expected \(ref.length), or its checksum)",
                              path: path, context: ["blob": "\(ref.offset)"])
        }
        count {
            $0.blobsRead += 1
            $0.blobBytesRead += bytes.count
        }
        return bytes
    }

    /// Runs `body` on the writer when this thread is in an exclusive section or has a
    /// transaction open there (what the transaction wrote is visible only to it), on a
    /// pooled connection otherwise.
    func onTransactionOrPool<T>(_ body: (PostgresLink) throws -> T) throws -> T {
        if writerLock.try() {
            defer { writerLock.unlock() }
            try relockIfExclusive()
            if lockedSequence != nil { return try body(try liveWriter()) }
        }
        return try pool.with(body)
    }

    /// In an exclusive section that has committed, takes the store's lock again before
    /// the section reads on (``withWriteTransaction(_:)`` leaves that to its next read),
    /// so that nothing commits between what it reads and what it writes next. The
    /// caller holds `writerLock`.
    func relockIfExclusive() throws {
        if exclusiveDepth > 0 && writeRefusal == nil { try beginLocked() }
    }
}
#endif
