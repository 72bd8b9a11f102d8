#if Postgres
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Strata
import StrataLog

/// Records in a PostgreSQL schema: the store type behind `StoreType.postgres`.
///
/// Several processes may open one store and write it: a commit is one PostgreSQL
/// transaction that locks the store's `state` row, so commits take turns across
/// processes, sequences follow commit order without gaps, and a save's checks
/// (object versions, unique values) run under the same lock as its commit
/// (`exclusively(_:)`). Durability is the server's: a commit is durable when
/// PostgreSQL's `COMMIT` returns.
///
/// Reads go to a small pool of connections; each statement sees every commit made
/// before it began (PostgreSQL's READ COMMITTED).
public final class PostgresRecordStore: RecordStore, @unchecked Sendable {
    let location: PostgresLocation
    let schema: String
    let logger: Logger
    let readOnly: Bool
    /// Connections for reads, taken one at a time and put back.
    let pool: ConnectionPool
    /// The connection commits run on; `writerLock` (recursive: a commit runs inside
    /// ``exclusively(_:)``) is held while it is used.
    let writerLink: Locked<PostgresLink>
    let writerLock = NSRecursiveLock()
    /// Guarded by `writerLock`: whether a transaction holding the state row is open
    /// on `writer`, and the sequence it read.
    var lockedSequence: UInt64?
    /// Guarded by `writerLock`: how deep ``exclusively(_:)`` calls are nested.
    var exclusiveDepth = 0
    /// Guarded by `writerLock`: the metadata generation the open transaction's lock read.
    var lockedGeneration: Int64?
    /// The metadata generation `cachedMetadata` is of: a commit that finds another
    /// under its lock is refused, since the store was migrated under this process.
    let knownGeneration: Locked<Int64>
    let cachedMetadata: Locked<[String: [UInt8]]>
    package let storeID: [UInt8]
    let counters = Locked(LogStatistics())
    let closedFlag = Locked(false)
    let listener: CommitListener
    /// The schema whose `blobs` table holds this store's blobs: its own, or for a
    /// staging store its owner's, so that a migration carries blobs by id.
    let blobSchema: String
    /// For a staging store, what made it: the store it may replace, and how deep in a
    /// staged plan's chain of staging stores it is (1 for the first).
    let staging: (root: PostgresRecordStore, depth: Int)?
    /// Guarded by `writerLock`, on a store whose migration is staging: the sequence the
    /// store must still be at when the staging is swapped in — where it was when the
    /// staging began, moved on by this process's own commits since (a `willMigrate`
    /// hook's save) as long as no other process's commit came between.
    var stagingBaseline: UInt64?
    /// A metadata generation this process is committing (a migration's, or its swap's):
    /// accepted beside `knownGeneration` while its transaction commits, so that this
    /// process's other threads are not refused in between.
    let pendingGeneration = Locked<Int64?>(nil)
    /// For a staging store, the directory of its scratch files, made on first use.
    let scratchDirectory = Locked<String?>(nil)

    /// Opens the store in `location`'s schema, creating its tables when the schema
    /// has none (unless `readOnly`).
    ///
    /// - Throws: `.io` when the server cannot be reached or refuses; `.notFound` for a
    ///   read-only open of a schema without a store; `.unsupportedFormat` for tables of
    ///   another layout version.
    public convenience init(location text: String, readOnly: Bool = false, logger: Logger = Logger(label: "strata.postgres")) throws {
        try self.init(location: try PostgresLocation(text), readOnly: readOnly, logger: logger, staging: nil)
    }

    /// Opens a store, or for a staging store (`staging` not nil) creates it afresh in
    /// `location`'s schema, dropping a leftover of a migration that never finished.
    init(location: PostgresLocation, readOnly: Bool, logger: Logger,
         staging: (root: PostgresRecordStore, depth: Int, sequence: UInt64)?) throws {
        self.location = location
        schema = location.schema
        self.logger = logger
        self.readOnly = readOnly
        self.staging = staging.map { ($0.root, $0.depth) }
        blobSchema = staging?.root.schema ?? location.schema
        let writer = try PostgresLink.connect(to: location, logger: logger)
        writerLink = Locked(writer)
        do {
            if let staging {
                try PostgresTables.createStaging(schema: schema, storeID: staging.root.storeID, sequence: staging.sequence, on: writer)
            } else {
                try PostgresTables.ensure(schema: schema, on: writer, readOnly: readOnly)
            }
            let rows = try writer.query("SELECT store_id, version FROM \(schema).state WHERE id = 1")
            guard let row = rows.first else { throw StrataError(.corrupt, "the store's state row is missing", path: location.description) }
            let (id, version) = try row.decode((ByteBuffer, Int32).self)
            try PostgresTables.upgrade(schema: schema, from: version, on: writer, readOnly: readOnly)
            guard version == PostgresTables.version || version == 1 else {
                throw StrataError(.unsupportedFormat, "the store's tables are of layout version \(version); this build reads \(PostgresTables.version)",
                                  path: location.description)
            }
            storeID = id.bytes
            let (generation, metadata) = try Self.readMetadataAndGeneration(schema: schema, on: writer)
            knownGeneration = Locked(generation)
            cachedMetadata = Locked(metadata)
            pool = ConnectionPool(location: location, logger: logger)
            listener = CommitListener(location: location, channel: location.notificationChannel, logger: logger)
        } catch {
            writer.close()
            throw error
        }
    }

    /// The metadata and the generation it is of, in one statement (one snapshot): read
    /// apart, a migration between the reads would pair them wrongly.
    static func readMetadataAndGeneration(schema: String, on link: PostgresLink) throws -> (Int64, [String: [UInt8]]) {
        var generation: Int64 = 0
        var metadata: [String: [UInt8]] = [:]
        for row in try link.query("SELECT s.metadata_generation, m.name, m.value FROM \(schema).state s LEFT JOIN \(schema).metadata m ON true WHERE s.id = 1") {
            let (rowGeneration, name, value) = try row.decode((Int64, String?, ByteBuffer?).self)
            generation = rowGeneration
            if let name, let value { metadata[name] = value.bytes }
        }
        return (generation, metadata)
    }

    static func readMetadata(schema: String, on link: PostgresLink) throws -> [String: [UInt8]] {
        var metadata: [String: [UInt8]] = [:]
        for row in try link.query("SELECT name, value FROM \(schema).metadata") {
            let (name, value) = try row.decode((String, ByteBuffer).self)
            metadata[name] = value.bytes
        }
        return metadata
    }

    /// The location as errors name it (no password).
    package var path: String { location.description }

    // MARK: Metadata and state

    package var metadata: [String: [UInt8]] { cachedMetadata.withLock { $0 } }

    package func setMetadata(_ metadata: [String: [UInt8]]) throws {
        if let refusal = writeRefusal { throw refusal }
        // Held until the copy and its generation are updated: a commit of another
        // thread in between would find them apart and be refused.
        writerLock.lock()
        defer { writerLock.unlock() }
        let based = cachedMetadata.withLock { $0 }
        var generation: Int64?
        defer { pendingGeneration.withLock { $0 = nil } }
        // Its own check of the stored metadata stands for the generation's.
        _ = try withWriteTransaction(checkingGeneration: false) { link, _ in
            // Metadata is rewritten whole from this process's copy: refused when another
            // process changed it since (a migration), rather than undoing its change.
            let stored = try Self.readMetadata(schema: schema, on: link)
            // Two processes creating one store write the same metadata: the second has
            // nothing to do.
            if stored == metadata {
                generation = lockedGeneration
                return false
            }
            guard stored == based else {
                throw StrataError(.incompatibleModel, "another process changed the store's model or layouts since it was opened here: open it again", path: path)
            }
            try link.query("DELETE FROM \(schema).metadata")
            for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
                var binds = PostgresBindings()
                binds.append(name)
                binds.appendBytes(value)
                try link.query("INSERT INTO \(schema).metadata (name, value) VALUES ($1, $2)", binds)
            }
            generation = try bumpGeneration(on: link)
            return false
        }
        cachedMetadata.withLock { $0 = metadata }
        if let generation { knownGeneration.withLock { $0 = generation } }
        pendingGeneration.withLock { $0 = nil }
    }

    /// Reads the metadata again, for a process that learns another one changed it
    /// (a migration): returns whether it changed.
    @discardableResult
    package func reloadMetadata() throws -> Bool {
        let (generation, fresh) = try pool.with { try Self.readMetadataAndGeneration(schema: schema, on: $0) }
        knownGeneration.withLock { $0 = generation }
        return cachedMetadata.withLock { current in
            defer { current = fresh }
            return current != fresh
        }
    }

    /// The last committed sequence as the server has it; when the server cannot be
    /// asked, the last one this process saw, and a warning in the log.
    package var lastSequence: UInt64 {
        do {
            let sequence = try pool.with { link in
                try link.query("SELECT sequence FROM \(schema).state WHERE id = 1").first.map { row -> UInt64 in
                    let sequence = try row.decode(Int64.self)
                    // A damaged or edited row is refused (below: the last sequence seen), not a trap.
                    guard sequence >= 0 else { throw StrataError(.corrupt, "the store's state row holds sequence \(sequence)", path: path) }
                    return UInt64(sequence)
                } ?? 0
            }
            return knownSequence.withLock { known in
                known = max(known, sequence)
                return sequence
            }
        } catch {
            logger.warning("the last sequence could not be read; answering the last one seen", metadata: ["error": "\(error)", "store": "\(path)"])
            return knownSequence.withLock { $0 }
        }
    }

    /// The newest sequence this process committed or read.
    let knownSequence = Locked<UInt64>(0)

    package var writeRefusal: StrataError? {
        if closedFlag.withLock({ $0 }) { return StrataError(.closed, "the store is closed", path: path) }
        if readOnly { return StrataError(.readOnly, "the store was opened read-only", path: path) }
        return nil
    }

    /// Other processes may write the store; none writes a staging store but the
    /// migration that made it.
    package var hasOtherWriters: Bool { staging == nil }

    package var statistics: LogStatistics { counters.withLock { $0 } }

    package func resetStatistics() { counters.withLock { $0 = LogStatistics() } }

    func count(_ update: (inout LogStatistics) -> Void) { counters.withLock(update) }

    package func observeCommits(_ observer: (@Sendable (UInt64) -> Void)?) {
        listener.start(observer)
    }

    public func close() throws {
        let wasClosed = closedFlag.withLock { closed -> Bool in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        listener.stop()
        writerLock.lock()
        defer { writerLock.unlock() }
        rollbackIfOpen()
        writerLink.withLock { $0 }.close()
        pool.closeAll()
        removeScratchDirectory()
    }

    deinit {
        try? close()
    }

    /// Reads that fail once the store is closed, as the segment log's do.
    func checkOpen() throws {
        if closedFlag.withLock({ $0 }) { throw StrataError(.closed, "the store is closed", path: path) }
    }
}

/// Connections for reads: one is taken for a call and put back after it; at most
/// `limit` stay open.
final class ConnectionPool: Sendable {
    let location: PostgresLocation
    let logger: Logger
    /// The idle connections; nil once the pool is closed, when a connection handed
    /// back (a read that was under way) is closed rather than kept.
    private let idle = Locked<[PostgresLink]?>([])
    static let limit = 8

    init(location: PostgresLocation, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    func with<T>(_ body: (PostgresLink) throws -> T) throws -> T {
        let taken = try idle.withLock { links -> PostgresLink? in
            guard links != nil else { throw StrataError(.closed, "the store is closed", path: location.description) }
            return links!.popLast()
        }
        let link = try taken ?? PostgresLink.connect(to: location, logger: logger)
        defer {
            let kept = !link.isClosed && idle.withLock { links -> Bool in
                guard links != nil, links!.count < Self.limit else { return false }
                links!.append(link)
                return true
            }
            if !kept { link.close() }
        }
        return try body(link)
    }

    func closeAll() {
        for link in idle.withLock({ links -> [PostgresLink] in defer { links = nil }; return links ?? [] }) { link.close() }
    }
}
#endif
