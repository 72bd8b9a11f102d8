#if Postgres
import NIOCore
import PostgresNIO
import StrataLog

extension PostgresRecordStore {
    /// Bounds of a key range as columns; nil for every key.
    private func bounds(_ range: Range<RecordKey>?) -> (Int64, Int64, Bool) {
        guard let range else { return (Int64.min, Int64.max, true) }
        return (PostgresCoding.column(range.lowerBound), PostgresCoding.column(range.upperBound), false)
    }

    /// `WHERE` over a key range: `$1` and `$2`; an upper bound of the whole key space
    /// is inclusive.
    private func rangeClause(_ range: Range<RecordKey>?) -> (String, PostgresBindings) {
        let (lower, upper, all) = bounds(range)
        var binds = PostgresBindings()
        binds.append(lower)
        binds.append(upper)
        return (all ? "key >= $1 AND key <= $2" : "key >= $1 AND key < $2", binds)
    }

    /// Runs `body` on a pooled connection, after ``relockIfExclusive()``.
    func read<T>(_ body: (PostgresLink) throws -> T) throws -> T {
        try checkOpen()
        if writerLock.try() {
            defer { writerLock.unlock() }
            try relockIfExclusive()
        }
        return try pool.with(body)
    }

    /// A row of ``recordColumns`` (or ``plainColumns`` without terms) as a record.
    ///
    /// Each row carries the metadata generation its statement saw: a record written
    /// after another process migrated the store is of layouts this process does not
    /// have, and decoding it with the old ones could read one field as another, so it
    /// is refused instead.
    private func record(from row: PostgresRow, withTerms: Bool) throws -> Record {
        let record: Record
        let generation: Int64
        if withTerms {
            let (key, sequence, value, blobs, indexes, values, seen) = try row.decode((Int64, Int64, ByteBuffer, ByteBuffer, [Int32], [ByteBuffer], Int64).self)
            let recordKey = PostgresCoding.key(key)
            let terms = zip(indexes, values).map { IndexTerm(index: UInt32(bitPattern: $0.0), value: $0.1.bytes) }
            record = Record(key: recordKey, sequence: UInt64(bitPattern: sequence), value: value.bytes,
                            blobs: try PostgresCoding.decodeBlobs(blobs.bytes, key: recordKey), terms: terms)
            generation = seen
        } else {
            let (key, sequence, value, blobs, seen) = try row.decode((Int64, Int64, ByteBuffer, ByteBuffer, Int64).self)
            let recordKey = PostgresCoding.key(key)
            record = Record(key: recordKey, sequence: UInt64(bitPattern: sequence), value: value.bytes,
                            blobs: try PostgresCoding.decodeBlobs(blobs.bytes, key: recordKey))
            generation = seen
        }
        guard generation == knownGeneration.withLock({ $0 }) || generation == pendingGeneration.withLock({ $0 }) else {
            throw StrataError(.incompatibleModel, "another process migrated the store since it was opened here (its model or record layouts changed): open it again", path: path)
        }
        return record
    }

    /// The metadata generation, as a column every row of a statement carries (computed
    /// once per statement, in its snapshot).
    private var generationColumn: String {
        "(SELECT metadata_generation FROM \(schema).state WHERE id = 1)"
    }

    /// The columns of a record, without its terms.
    private var plainColumns: String {
        "r.key, r.sequence, r.value, r.blobs, \(generationColumn)"
    }

    /// The columns of a record, its terms with it (in one order, index then value).
    private var recordColumns: String {
        """
        r.key, r.sequence, r.value, r.blobs,
        ARRAY(SELECT t.index FROM \(schema).terms t WHERE t.key = r.key ORDER BY t.index, t.value),
        ARRAY(SELECT t.value FROM \(schema).terms t WHERE t.key = r.key ORDER BY t.index, t.value),
        \(generationColumn)
        """
    }

    package func get(_ key: RecordKey) throws -> Record? {
        var binds = PostgresBindings()
        binds.append(PostgresCoding.column(key))
        let record = try read { link in
            try link.query("SELECT \(recordColumns) FROM \(schema).records r WHERE r.key = $1", binds).first.map { try self.record(from: $0, withTerms: true) }
        }
        if record != nil { count { $0.recordsDecoded += 1 } }
        return record
    }

    package func get(_ keys: [RecordKey]) throws -> [Record?] {
        guard !keys.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(keys.map(PostgresCoding.column))
        let found = try read { link in
            try link.query("SELECT \(plainColumns) FROM \(schema).records r WHERE r.key = ANY($1)", binds)
                .map { try self.record(from: $0, withTerms: false) }
        }
        count { $0.recordsDecoded += found.count }
        let byKey = Dictionary(found.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        return keys.map { byKey[$0] }
    }

    /// A fault's read: the record without its terms, which only verification and
    /// copies need.
    package func withRecord(_ key: RecordKey, _ body: (RecordView) throws -> Void) throws -> Bool {
        var binds = PostgresBindings()
        binds.append(PostgresCoding.column(key))
        let found = try read { link in
            try link.query("SELECT \(plainColumns) FROM \(schema).records r WHERE r.key = $1", binds).first
                .map { try self.record(from: $0, withTerms: false) }
        }
        guard let record = found else { return false }
        count { $0.recordsDecoded += 1 }
        try record.value.withUnsafeBytes { bytes in
            try record.blobs.withUnsafeBufferPointer { blobs in
                try body(RecordView(key: record.key, sequence: record.sequence, value: bytes, blobs: blobs))
            }
        }
        return true
    }

    package func sequence(of key: RecordKey) throws -> UInt64? {
        var binds = PostgresBindings()
        binds.append(PostgresCoding.column(key))
        return try read { link in
            try link.query("SELECT sequence FROM \(schema).records WHERE key = $1", binds).first.map { UInt64(bitPattern: try $0.decode(Int64.self)) }
        }
    }

    package func contains(_ key: RecordKey) throws -> Bool {
        try sequence(of: key) != nil
    }

    package func keys(in range: Range<RecordKey>?) throws -> [RecordKey] {
        let (clause, binds) = rangeClause(range)
        return try read { link in
            try link.query("SELECT key FROM \(schema).records WHERE \(clause) ORDER BY key", binds).map { PostgresCoding.key(try $0.decode(Int64.self)) }
        }
    }

    package func locatedKeys(in range: Range<RecordKey>?) throws -> [LocatedKey] {
        try keys(in: range).map(LocatedKey.init)
    }

    package func keys(in range: Range<RecordKey>?, after: RecordKey?, limit: Int) throws -> [RecordKey] {
        var (clause, binds) = rangeClause(range)
        if let after {
            binds.append(PostgresCoding.column(after))
            clause += " AND key > $3"
        }
        binds.append(Int64(max(0, limit)))
        return try read { link in
            try link.query("SELECT key FROM \(schema).records WHERE \(clause) ORDER BY key LIMIT $\(after == nil ? 3 : 4)", binds)
                .map { PostgresCoding.key(try $0.decode(Int64.self)) }
        }
    }

    package func count(in range: Range<RecordKey>?) throws -> Int {
        let (clause, binds) = rangeClause(range)
        return try read { link in
            Int(try link.query("SELECT count(*) FROM \(schema).records WHERE \(clause)", binds).first?.decode(Int64.self) ?? 0)
        }
    }

    package func lastKey(in range: Range<RecordKey>) throws -> RecordKey? {
        let (clause, binds) = rangeClause(range)
        return try read { link in
            try link.query("SELECT key FROM \(schema).records WHERE \(clause) ORDER BY key DESC LIMIT 1", binds).first
                .map { PostgresCoding.key(try $0.decode(Int64.self)) }
        }
    }

    package func scan(_ range: Range<RecordKey>?, batchSize: Int, _ body: ([Record]) throws -> Void) throws {
        try scanPages(range, batchSize: batchSize) { page in
            try body(page)
            return true
        }
    }

    /// The range's records in key order, a page of at most `batchSize` at a time, until
    /// `body` returns false.
    func scanPages(_ range: Range<RecordKey>?, batchSize: Int, withTerms: Bool = true, _ body: ([Record]) throws -> Bool) throws {
        let (clause, _) = rangeClause(range)
        let (lower, upper, _) = bounds(range)
        let limit = max(1, batchSize)
        var after: Int64?
        while true {
            var binds = PostgresBindings()
            binds.append(lower)
            binds.append(upper)
            binds.append(Int64(limit))
            if let after { binds.append(after) }
            let page = try read { link in
                try link.query("""
                    SELECT \(withTerms ? recordColumns : plainColumns) FROM \(schema).records r
                    WHERE \(clause.replacingOccurrences(of: "key", with: "r.key"))\(after == nil ? "" : " AND r.key > $4")
                    ORDER BY r.key LIMIT $3
                    """, binds).map { try self.record(from: $0, withTerms: withTerms) }
            }
            guard let last = page.last else { return }
            count { $0.recordsDecoded += page.count }
            guard try body(page), page.count == limit else { return }
            after = PostgresCoding.column(last.key)
        }
    }

    /// A range's records a page at a time, in key order: bounded memory however large
    /// the range.
    package func visitRecords(in range: Range<RecordKey>, wants: ((RecordKey) -> Bool)?, _ body: (RecordView) throws -> Bool) throws {
        try scanPages(range, batchSize: 512, withTerms: false) { page in
            for record in page where wants?(record.key) ?? true {
                let more = try record.value.withUnsafeBytes { bytes in
                    try record.blobs.withUnsafeBufferPointer { blobs in
                        try body(RecordView(key: record.key, sequence: record.sequence, value: bytes, blobs: blobs))
                    }
                }
                if !more { return false }
            }
            return true
        }
    }
}
#endif
