import StrataLog

/// The seam between the object layer and storage, as Core Data's persistent stores
/// are: versioned records under 64-bit keys, blobs by reference, secondary terms and
/// metadata. The segment log (`LogStore`) is the default store type; the in-memory
/// store type is the same engine over a file system held in memory. A database-server store
/// type can stand behind the same protocol: nothing in the object layer reaches
/// around it into files.
package protocol RecordStore: AnyObject, Sendable {
    /// The caller's metadata (model hash, schema tags, the model itself).
    var metadata: [String: [UInt8]] { get }
    /// Replaces the metadata durably.
    func setMetadata(_ metadata: [String: [UInt8]]) throws
    /// The store's 16-byte id, fixed at creation.
    var storeID: [UInt8] { get }
    /// The last committed transaction's sequence number.
    var lastSequence: UInt64 { get }
    /// The newest version of a key, nil when absent or deleted.
    func get(_ key: RecordKey) throws -> Record?
    /// The newest versions of several keys, in order, reading each block once.
    func get(_ keys: [RecordKey]) throws -> [Record?]
    /// The sequence of a key's current version (optimistic locking), without reading a record.
    func sequence(of key: RecordKey) throws -> UInt64?
    /// Whether a key has a live version.
    func contains(_ key: RecordKey) throws -> Bool
    /// Live keys of a range, ascending.
    func keys(in range: Range<RecordKey>?) throws -> [RecordKey]
    /// What `keys(in:)` lists, each key with where its current version lies, for
    /// `visitRecords(located:_:)`.
    func locatedKeys(in range: Range<RecordKey>?) throws -> [LocatedKey]
    /// A page of live keys after `after`, ascending.
    func keys(in range: Range<RecordKey>?, after: RecordKey?, limit: Int) throws -> [RecordKey]
    /// How many live keys a range holds (`LogStore` answers a whole entity's range from
    /// counters, without walking keys).
    func count(in range: Range<RecordKey>?) throws -> Int
    /// The greatest live key of a range, nil when it holds none.
    func lastKey(in range: Range<RecordKey>) throws -> RecordKey?
    /// Live keys whose current version carries a term.
    func keys(for term: IndexTerm) throws -> [RecordKey]
    /// ``keys(for:)`` of several terms at once, in their order (one query on a server).
    func keys(for terms: [IndexTerm]) throws -> [[RecordKey]]
    /// Which of `keys` have a live version: ``contains(_:)`` of several keys at once.
    func liveKeys(among keys: [RecordKey]) throws -> Set<RecordKey>
    /// Whether many lookups cost less asked in one call than one by one (a server's
    /// round trips): the object layer then gathers a save's unique-value lookups, and
    /// a migration's batch, into one call each. The segment log answers each from
    /// memory and its files, and is asked one by one.
    var prefersBatchedLookups: Bool { get }
    /// Live keys whose term under `index` lies within the bounds (bytewise).
    func keys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) throws -> [RecordKey]
    /// What `keys(index:…)` lists, each key with where its current version lies, for
    /// `visitRecords(located:_:)`.
    func locatedKeys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) throws -> [LocatedKey]
    /// A page of the entries (term value, key) of one index whose values start with
    /// `prefix`, ascending by value then key, strictly after `after`, at most `limit`.
    /// Relationship edges are listed this way (docs/FORMAT.md §11), without reading
    /// the edge records.
    func termEntries(index: UInt32, prefix: [UInt8], after: TermEntry?, limit: Int) throws -> [TermEntry]
    /// A page of one index's live entries in term order (descending: its reverse),
    /// strictly after `after`, each key located; nil for a store type that cannot walk
    /// an index in order (a fetch sorted by an indexed attribute then judges every
    /// object of the entity, as without the index).
    func orderedIndexPage(index: UInt32, descending: Bool, after: TermEntry?, limit: Int) throws -> OrderedTermPage?
    /// The live records of a range in key order, `batchSize` at a time: a whole
    /// entity streamed in bounded memory.
    func scan(_ range: Range<RecordKey>?, batchSize: Int, _ body: ([Record]) throws -> Void) throws
    /// Calls `body` with each live record among `keys`, in order (absent ones skipped),
    /// read in place without copying it out (`LogStore` reads each block once); `body`
    /// gets the key's position in `keys` and returns false to stop. Queries judge
    /// records this way and keep only the matches.
    func visitRecords(_ keys: [RecordKey], _ body: (Int, RecordView) throws -> Bool) throws
    /// Hands the newest live version of a key, read in place (as `visitRecords`
    /// reads), to `body`; false when absent or deleted. A fault reads its record this
    /// way, without copying it out of its block.
    func withRecord(_ key: RecordKey, _ body: (RecordView) throws -> Void) throws -> Bool
    /// `visitRecords(_:_:)` for keys listed with their locations: each is read where
    /// the listing found it, without a second lookup.
    func visitRecords(located: [LocatedKey], _ body: (Int, RecordView) throws -> Bool) throws
    /// Calls `body` with each live record of `range` in key order, read in place, until
    /// it returns false; keys for which `wants` answers false are passed over unread
    /// (nil: every key is wanted, and no question is asked per key).
    func visitRecords(in range: Range<RecordKey>, wants: ((RecordKey) -> Bool)?, _ body: (RecordView) throws -> Bool) throws
    /// `visitRecords(in:wants:_:)` for every key, the records handed over a run at a
    /// time (a block's, for the segment log): `body` loops over them and returns
    /// false to stop.
    func visitRecordRuns(in range: Range<RecordKey>, _ body: (UnsafeBufferPointer<RecordView>) throws -> Bool) throws
    /// `visitRecordRuns(in:_:)` for one of the ranges a scan reads in turn; `scanned`
    /// carries the bytes the scan has read across them (the segment log's cache
    /// keeps a long scan's later blocks out of it, whichever range they lie in).
    func visitRecordRuns(in range: Range<RecordKey>, scanned: inout Int, _ body: (UnsafeBufferPointer<RecordView>) throws -> Bool) throws
    /// Appends a blob and returns its reference.
    func writeBlob(_ bytes: [UInt8]) throws -> BlobRef
    /// Reads a blob by reference, checksums verified.
    func readBlob(_ ref: BlobRef) throws -> [UInt8]
    /// Commits a transaction whole; returns its sequence.
    @discardableResult func commit(_ batch: WriteBatch) throws -> UInt64
    /// Commits one transaction handed over in chunks (`produce` fills each and says
    /// whether more follow; its `writeBlob` writes a blob for them), visible whole or
    /// not at all, holding a chunk at a time (`LogStore.commit(chunks:)`).
    @discardableResult func commit(chunks produce: (inout WriteBatch, _ writeBlob: ([UInt8]) throws -> BlobRef) throws -> Bool) throws -> UInt64
    /// Commits a transaction and makes it visible, leaving its durability to
    /// ``waitUntilDurable(_:)`` or ``durable(_:)``: a save checks and appends under its
    /// lock and waits outside it, so that concurrent saves share an fsync.
    func commitPending(_ batch: WriteBatch) throws -> PendingCommit
    /// Blocks until `commit` is durable.
    func waitUntilDurable(_ commit: PendingCommit) throws
    /// Suspends until `commit` is durable.
    func durable(_ commit: PendingCommit) async throws
    /// Makes the commits the store shows durable, up to `sequence` at least (nil: all
    /// of them), and returns a sequence through which every commit is durable
    /// (`LogStore.syncVisible(through:)`): history hands out only transactions a crash keeps.
    func syncVisible(through sequence: UInt64?) throws -> UInt64
    /// The sequence through which every commit is known to be durable.
    var durableSequence: UInt64 { get }
    /// Runs `body` — a save's checks (object versions, unique values, relationship
    /// ends) and its commit — so that no other commit to the store, from this process
    /// or another, lands between them: a check then holds when its commit does.
    /// `body`'s reads see every commit made before it began, and its commits run
    /// inside it. `LogStore` holds a lock of its process (its file lock keeps other
    /// processes from writing); a store type on a server holds a lock there.
    func exclusively<T>(_ body: () throws -> T) throws -> T
    /// Reserves `count` consecutive serials of key tag `tag` for this process alone,
    /// none below `floor`, and returns the first; nil when one process writes the
    /// store, whose own counters (read at open) then hand serials out.
    func reserveSerials(tag: UInt16, count: Int, floor: UInt64) throws -> UInt64?
    /// Calls `observer` with the sequence of each commit this store learns of from
    /// other processes (nil stops it): feeds wake on it. Store types with one
    /// writing process have none to report.
    func observeCommits(_ observer: (@Sendable (UInt64) -> Void)?)
    /// Whether other processes may commit while this one has the store open.
    var hasOtherWriters: Bool { get }
    /// Reads the metadata again, for a store other processes write (one of them may
    /// have migrated it); returns whether it changed.
    @discardableResult func reloadMetadata() throws -> Bool
    /// Why the store refuses writes (closed, opened read-only, or read-only after a
    /// failed write), or nil while it accepts them.
    var writeRefusal: StrataError? { get }
    /// What has been read and written since open or reset.
    var statistics: LogStatistics { get }
    /// Zeroes the statistics.
    func resetStatistics()
    /// Checks every frame, index file and referenced blob.
    func verify() throws -> VerifyReport
    /// Disk use and garbage.
    var usage: StoreUsage { get }
    /// Rewrites garbage away (and collects blob garbage).
    @discardableResult func compact(force: Bool) throws -> CompactionReport
    /// Rewrites garbage away reading at most `bytesPerSecond` bytes a second (nil: the
    /// store's own setting).
    @discardableResult func compact(force: Bool, bytesPerSecond: Int?) throws -> CompactionReport
    /// ``compact(force:bytesPerSecond:)`` that `cancellation` can stop part-way, with
    /// `CancellationError`.
    @discardableResult func compact(force: Bool, bytesPerSecond: Int?, cancellation: CompactionCancellation?) throws -> CompactionReport
    /// Stops a compaction under way soon, with `.closed`, and refuses later ones: the
    /// store is about to close.
    func stopCompaction()
    /// Flushes and releases the store.
    func close() throws
}

extension LogStore: RecordStore {
    package func exclusively<T>(_ body: () throws -> T) throws -> T {
        try commitSection.withLock { _ in try body() }
    }

    package func orderedIndexPage(index: UInt32, descending: Bool, after: TermEntry?, limit: Int) throws -> OrderedTermPage? {
        try orderedTermPage(index: index, descending: descending, after: after, limit: limit)
    }
}

extension RecordStore {
    /// None: one process writes the store, and hands serials out itself.
    package func reserveSerials(tag: UInt16, count: Int, floor: UInt64) throws -> UInt64? { nil }

    /// Nothing to report: one process writes the store.
    package func observeCommits(_ observer: (@Sendable (UInt64) -> Void)?) {}

    /// One process writes the store.
    package var hasOtherWriters: Bool { false }

    /// Nothing to read again: this process is the only writer.
    @discardableResult package func reloadMetadata() throws -> Bool { false }

    /// A commit durable when it returns: for store types without group commit.
    package func commitPending(_ batch: WriteBatch) throws -> PendingCommit {
        PendingCommit(durableSequence: try commit(batch))
    }

    /// Nothing to wait for: ``commitPending(_:)``'s default is durable when it returns.
    package func waitUntilDurable(_ commit: PendingCommit) throws {}

    /// Nothing to wait for: ``commitPending(_:)``'s default is durable when it returns.
    package func durable(_ commit: PendingCommit) async throws {}

    /// Nothing to wait for: a store type without group commit shows a commit once it
    /// is durable.
    package func syncVisible(through sequence: UInt64?) throws -> UInt64 { sequence ?? lastSequence }

    /// The last sequence: a store type without group commit shows a commit once it is durable.
    package var durableSequence: UInt64 { lastSequence }

    /// Gathers the chunks into one batch: for store types that cannot write a
    /// transaction in parts.
    @discardableResult
    package func commit(chunks produce: (inout WriteBatch, _ writeBlob: ([UInt8]) throws -> BlobRef) throws -> Bool) throws -> UInt64 {
        var batch = WriteBatch()
        while try produce(&batch, writeBlob) {}
        return try commit(batch)
    }

    /// One lookup per term: for store types that answer each without a round trip.
    package func keys(for terms: [IndexTerm]) throws -> [[RecordKey]] {
        try terms.map { try keys(for: $0) }
    }

    /// One lookup per key: for store types that answer each without a round trip.
    package func liveKeys(among keys: [RecordKey]) throws -> Set<RecordKey> {
        try Set(keys.filter { try contains($0) })
    }

    /// Lookups one by one.
    package var prefersBatchedLookups: Bool { false }

    /// None: for store types that cannot walk an index in term order.
    package func orderedIndexPage(index: UInt32, descending: Bool, after: TermEntry?, limit: Int) throws -> OrderedTermPage? { nil }

    /// Keys without locations: for store types that do not locate while listing.
    package func locatedKeys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) throws -> [LocatedKey] {
        try keys(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive).map(LocatedKey.init)
    }

    /// Looks every key up: for store types that do not locate while listing.
    package func visitRecords(located: [LocatedKey], _ body: (Int, RecordView) throws -> Bool) throws {
        try visitRecords(located.map(\.key), body)
    }

    /// Counts by listing the range's keys: for store types without counters.
    package func count(in range: Range<RecordKey>?) throws -> Int { try keys(in: range).count }

    /// Reads the records with `get` and views their copies: for store types without blocks.
    package func visitRecords(_ keys: [RecordKey], _ body: (Int, RecordView) throws -> Bool) throws {
        var start = 0
        while start < keys.count {
            let end = min(keys.count, start + 512)
            for (offset, record) in try get(Array(keys[start..<end])).enumerated() {
                guard let record else { continue }
                let more = try record.value.withUnsafeBytes { bytes in
                    try record.blobs.withUnsafeBufferPointer { blobs in
                        try body(start + offset, RecordView(key: record.key, sequence: record.sequence, value: bytes, blobs: blobs))
                    }
                }
                if !more { return }
            }
            start = end
        }
    }

    /// Reads the record with `get` and views its copy: for store types without blocks.
    package func withRecord(_ key: RecordKey, _ body: (RecordView) throws -> Void) throws -> Bool {
        guard let record = try get(key) else { return false }
        try record.value.withUnsafeBytes { bytes in
            try record.blobs.withUnsafeBufferPointer { blobs in
                try body(RecordView(key: record.key, sequence: record.sequence, value: bytes, blobs: blobs))
            }
        }
        return true
    }

    /// Lists the range's keys, then visits them: for store types without a range walk.
    package func visitRecords(in range: Range<RecordKey>, wants: ((RecordKey) -> Bool)?, _ body: (RecordView) throws -> Bool) throws {
        let keys = try keys(in: range)
        try visitRecords(wants.map { keys.filter($0) } ?? keys) { try body($1) }
    }

    /// Each record a run of its own: for store types without blocks.
    package func visitRecordRuns(in range: Range<RecordKey>, _ body: (UnsafeBufferPointer<RecordView>) throws -> Bool) throws {
        try visitRecords(in: range, wants: nil) { view in
            try withUnsafePointer(to: view) { try body(UnsafeBufferPointer(start: $0, count: 1)) }
        }
    }

    /// Without a block cache, nothing to count.
    package func visitRecordRuns(in range: Range<RecordKey>, scanned: inout Int, _ body: (UnsafeBufferPointer<RecordView>) throws -> Bool) throws {
        try visitRecordRuns(in: range, body)
    }

    /// Lists the range's keys: for store types that cannot read back from a range's end.
    package func lastKey(in range: Range<RecordKey>) throws -> RecordKey? { try keys(in: range).last }
}

extension RecordStore {
    /// A store type whose compaction is one short call has none to stop.
    package func stopCompaction() {}

    /// A store type with no rate to hold compacts as fast as it goes.
    @discardableResult package func compact(force: Bool, bytesPerSecond: Int?) throws -> CompactionReport {
        try compact(force: force)
    }

    /// A store type whose compaction is one short call runs it whole.
    @discardableResult package func compact(force: Bool, bytesPerSecond: Int?, cancellation: CompactionCancellation?) throws -> CompactionReport {
        try compact(force: force, bytesPerSecond: bytesPerSecond)
    }
}
