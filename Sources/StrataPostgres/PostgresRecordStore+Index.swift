#if Postgres
import NIOCore
import PostgresNIO
import StrataLog

extension PostgresRecordStore {
    package func keys(for term: IndexTerm) throws -> [RecordKey] {
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: term.index))
        binds.appendBytes(term.value)
        return try read { link in
            try link.query("SELECT key FROM \(schema).terms WHERE index = $1 AND value = $2 ORDER BY key", binds)
                .map { PostgresCoding.key(try $0.decode(Int64.self)) }
        }
    }

    /// One query for every term: a save's unique-value checks cost one round trip.
    package func keys(for terms: [IndexTerm]) throws -> [[RecordKey]] {
        guard terms.count > 1 else { return try terms.map { try keys(for: $0) } }
        var binds = PostgresBindings()
        binds.append(terms.map { Int32(bitPattern: $0.index) })
        binds.append(terms.map { ByteBuffer(bytes: $0.value) })
        var found = [[RecordKey]](repeating: [], count: terms.count)
        try read { link in
            for row in try link.query("""
                SELECT w.position, t.key FROM unnest($1::integer[], $2::bytea[]) WITH ORDINALITY AS w(index, value, position)
                JOIN \(schema).terms t ON t.index = w.index AND t.value = w.value ORDER BY w.position, t.key
                """, binds) {
                let (position, key) = try row.decode((Int64, Int64).self)
                guard position >= 1, position <= Int64(terms.count) else {
                    throw StrataError(.io, "PostgreSQL answered a term lookup with position \(position) of \(terms.count)", path: path)
                }
                found[Int(position) - 1].append(PostgresCoding.key(key))
            }
        }
        return found
    }

    /// One query for every key.
    package func liveKeys(among keys: [RecordKey]) throws -> Set<RecordKey> {
        guard !keys.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(keys.map(PostgresCoding.column))
        return try read { link in
            Set(try link.query("SELECT key FROM \(schema).records WHERE key = ANY($1)", binds).map { PostgresCoding.key(try $0.decode(Int64.self)) })
        }
    }

    /// Each lookup is a round trip to the server.
    package var prefersBatchedLookups: Bool { true }

    package func keys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) throws -> [RecordKey] {
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: index))
        var clause = "index = $1"
        if let lower {
            binds.appendBytes(lower)
            clause += " AND value \(lowerInclusive ? ">=" : ">") $\(binds.count)"
        }
        if let upper {
            binds.appendBytes(upper)
            clause += " AND value \(upperInclusive ? "<=" : "<") $\(binds.count)"
        }
        return try read { link in
            try link.query("SELECT DISTINCT key FROM \(schema).terms WHERE \(clause) ORDER BY key", binds)
                .map { PostgresCoding.key(try $0.decode(Int64.self)) }
        }
    }

    package func termEntries(index: UInt32, prefix: [UInt8], after: TermEntry?, limit: Int) throws -> [TermEntry] {
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: index))
        binds.appendBytes(prefix)
        var clause = "index = $1 AND value >= $2"
        if let end = PostgresCoding.successor(ofPrefix: prefix) {
            binds.appendBytes(end)
            clause += " AND value < $\(binds.count)"
        }
        if let after {
            binds.appendBytes(after.value)
            binds.append(PostgresCoding.column(after.key))
            clause += " AND (value, key) > ($\(binds.count - 1), $\(binds.count))"
        }
        binds.append(Int64(max(0, limit)))
        return try read { link in
            try link.query("SELECT value, key FROM \(schema).terms WHERE \(clause) ORDER BY value, key LIMIT $\(binds.count)", binds).map { row in
                let (value, key) = try row.decode((ByteBuffer, Int64).self)
                return TermEntry(value: value.bytes, key: PostgresCoding.key(key))
            }
        }
    }

    package func orderedIndexPage(index: UInt32, descending: Bool, after: TermEntry?, limit: Int) throws -> OrderedTermPage? {
        let limit = max(1, limit)
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: index))
        var clause = "index = $1"
        if let after {
            binds.appendBytes(after.value)
            binds.append(PostgresCoding.column(after.key))
            clause += " AND (value, key) \(descending ? "<" : ">") ($2, $3)"
        }
        binds.append(Int64(limit))
        let order = descending ? "value DESC, key DESC" : "value, key"
        let (rows, sequence) = try read { link -> ([(ByteBuffer, Int64)], UInt64) in
            // The sequence first: a commit between the two statements then shows as a
            // change of sequence at the next page, and the walk starts again.
            let sequence = try link.query("SELECT sequence FROM \(schema).state WHERE id = 1").first.map { UInt64(bitPattern: try $0.decode(Int64.self)) } ?? 0
            let rows = try link.query("SELECT value, key FROM \(schema).terms WHERE \(clause) ORDER BY \(order) LIMIT $\(binds.count)", binds)
                .map { try $0.decode((ByteBuffer, Int64).self) }
            return (rows, sequence)
        }
        var values: [[UInt8]] = []
        var entries: [(valueIndex: Int, located: LocatedKey)] = []
        entries.reserveCapacity(rows.count)
        for (value, key) in rows {
            let bytes = value.bytes
            if values.last != bytes { values.append(bytes) }
            entries.append((values.count - 1, LocatedKey(PostgresCoding.key(key))))
        }
        let next = rows.count == limit ? rows.last.map { TermEntry(value: $0.0.bytes, key: PostgresCoding.key($0.1)) } : nil
        return OrderedTermPage(values: values, entries: entries, next: next, sequence: sequence)
    }
}
#endif
