import Logging
import StrataLog

/// How an `ObjectStore` opens.
public struct StoreOptions: Sendable {
    /// Where the store's records live: the segment log in a directory (the default),
    /// memory, or a store type of another module, such as StrataPostgres's
    /// `.postgres`, which keeps them on a database server.
    public struct StoreType: Sendable, Equatable, CustomStringConvertible {
        /// The type's name (its `description`); two store types are the same when their names are.
        package let name: String
        /// Opens (or creates) the records at the location a store is opened at; nil
        /// for the segment log's own types, which `ObjectStore` opens itself.
        let opener: (@Sendable (_ location: String, _ options: StoreOptions) throws -> any RecordStore)?

        /// The append-only segment log in a directory: the default.
        public static let segmentLog = StoreType(name: "segmentLog", opener: nil)
        /// The same engine over an in-memory file system: nothing touches disk, and
        /// everything is gone when the store is released. For tests.
        public static let inMemory = StoreType(name: "inMemory", opener: nil)

        /// A store type whose records `open` opens or creates, given the location the
        /// store is opened at (``ObjectStore/init(at:model:options:)``'s `path`: a
        /// directory, or a server's address) and the options.
        package static func custom(_ name: String, open: @escaping @Sendable (_ location: String, _ options: StoreOptions) throws -> any RecordStore) -> StoreType {
            StoreType(name: name, opener: open)
        }

        public static func == (lhs: StoreType, rhs: StoreType) -> Bool { lhs.name == rhs.name }

        public var description: String { name }
    }

    /// Where the records live: the segment log (default) or memory.
    public var storeType: StoreType = .segmentLog
    /// The storage engine's options: durability, segment sizes, compression…
    public var log = LogStoreOptions()
    /// External-storage binaries at least this large go to the blob area; smaller
    /// ones stay in the record (Core Data's rule, with a threshold you choose).
    public var externalStorageThreshold = 8 << 10
    /// How many sibling faults one firing loads together (Core Data's batch faulting):
    /// a fetch's results are cut into runs of this many, and firing one loads its run.
    public var faultBatchSize = 64
    /// How many objects ``ObjectStore/batchInsert(entityName:dictionaryHandler:)`` and a
    /// large ``ObjectContext/save()`` hand the engine at a time, at most. An insert of
    /// up to this many is one ordinary commit; a larger one is written in chunks
    /// (`LogStore.commit(chunks:)`, which seals a segment of its own) of this many or
    /// 8,192, whichever is smaller, holding one chunk's records and index entries
    /// — at most about 20 MiB of employee-like objects at the default — whatever the
    /// transaction's size.
    public var insertChunkSize = 32_768

    /// The chunk a chunked insert hands over after its first: at most 8,192 objects.
    /// A chunk is made on the caller's thread and written on a second one a chunk
    /// later; a larger chunk of small records falls out of the processor's cache in
    /// between while the caller walks the next chunk's objects, and the writing
    /// thread, the longer half of a context's save, then reads them from memory.
    var insertHandOverSize: Int { min(max(1, insertChunkSize), 8_192) }
    /// A sorted fetch that scans an entity (no index serves its predicate) of at least
    /// this many objects cuts the entity's keys into chunks (up to 16, each a quarter
    /// of this many serials or more) that two threads claim in turn, as PostgreSQL's
    /// parallel sequential scan hands out blocks, and merges what they keep; on one
    /// core, or below this, it scans on the caller's thread. `Int.max` turns it off.
    package var parallelScanMinimum = 8_192
    /// A sorted fetch whose index lists at least this many candidates judges the two
    /// halves of them on two threads. `Int.max` turns it off.
    package var parallelCandidateMinimum = 4_096
    /// Where open, recovery, compaction and migration log what they did (info) and anomalies (warning).
    public var logger = Logger(label: "strata")
    /// What to do when the store's model differs from the one it is opened with.
    public var migration: StoreMigration = .none
    /// Replace a store whose model differs from the opening one with an empty store,
    /// instead of failing with `.incompatibleModel` — Realm's
    /// `deleteRealmIfMigrationNeeded`, for development, where the data can be made again.
    /// Never the default. Every object in the store is lost: the replacement is logged
    /// at warning level, naming both models.
    ///
    /// ```swift
    /// var options = StoreOptions()
    /// options.deleteStoreIfMigrationNeeded = true     // a debug build only
    /// let store = try ObjectStore(at: path, model: currentModel, options: options)
    /// ```
    ///
    /// It deletes only the store's own files (the segments, blob files and index files
    /// its manifest lists; the manifest is replaced), and only after the store's write
    /// lock is held: a store another process has open fails with `.storeLocked` and
    /// loses nothing. It cannot be combined with a ``migration``: asking for both throws
    /// `.invalidArgument` (which should win is a decision the caller makes).
    public var deleteStoreIfMigrationNeeded = false
    /// Memory a migration may use: a quarter for the block cache while it runs (or
    /// `log.blockCacheBytes` when smaller), an eighth for the staging store's overlay
    /// (it seals a segment at that many keys), the rest for objects in flight at about
    /// 8 KiB each, which sets the batch size.
    public var migrationMemoryBudget = 64 << 20
    /// Overrides the batch size the budget implies (objects per batch).
    public var migrationBatchSize: Int?
    /// Where an in-place stage that adds a uniqueness rule sorts the rule's values when
    /// they outgrow a quarter of ``migrationMemoryBudget`` (an external merge sort; the
    /// files are removed when the check ends, and never touch the store). nil: the
    /// system's temporary directory (`TMPDIR`, else `/tmp`).
    public var scratchDirectory: String?
    /// Called as a migration advances (objects done, total), for bars and logs.
    public var migrationProgress: (@Sendable (MigrationProgress) -> Void)?
    /// The file system a `.segmentLog` store opens over, instead of the real one
    /// (nil): any `FileSystem`, such as one that injects I/O errors in a test of how
    /// a service copes with a failing disk. The same seam as `LogStore.open`'s.
    public var fileSystem: (any FileSystem)?

    /// Whether opening fails when a `transformable` attribute names a value transformer
    /// that is not registered (``ValueTransformers``): on by default, so a missing
    /// registration is an error at open naming `Entity.attribute` and the transformer,
    /// not a failure at the first read. Tools that move the stored bytes without
    /// decoding them (export, import, migration by the command-line tool) turn it off;
    /// reading a transformed value then fails for that attribute only.
    public var requiresValueTransformers = true

    /// How many ``ObjectStore/write(_:)`` calls may be queued, running or waiting for
    /// their fsync at once; past it `write` throws `.limitExceeded` at once instead of
    /// queueing without bound (a service answers 503 and the client retries later).
    public var maxPendingWrites = 1_024
    /// How many times ``ObjectStore/write(_:)`` runs its closure again after a save's
    /// `.conflict` before it throws the conflict.
    public var writeConflictRetries = 3
    /// Threads that run ``ObjectStore/read(_:)`` closures: 0 (the default) is one per
    /// core, at least two. They start with the first read.
    public var readerThreads = 0
    /// Change sets a ``ObjectStore/changes()`` consumer may fall behind by before later
    /// ones are dropped and reported in ``ChangeSet/missed``.
    public var changeBufferLimit = 1_024
    /// Where the store reports each operation's duration and outcome (metrics).
    package var instrument: (any StoreInstrument)?
    /// Open checks the whole store before it answers anything, as LevelDB's
    /// `paranoid_checks`: ``ObjectStore/verify()`` runs — the engine's checks (every
    /// index file rebuilt from its segment and compared, every counter recounted) and
    /// every object and edge record held to the model — and a store found unsound is
    /// refused with `.corrupt` naming the first problem. In the default mode an index
    /// entry edited with its checksum recomputed can make a read miss a version or a
    /// term match until `verify` is run (docs/FORMAT.md, "Trust model"); with these
    /// checks it cannot. Open then reads the whole store: its time grows with the
    /// store's size, its memory does not.
    public var paranoidChecks = false

    /// Every commit that changes objects writes one history entry in its own transaction: who, when, and
    /// what each object went through (``ObjectStore/fetchHistory(after:limit:)``,
    /// ``ObjectStore/changes(after:)``), as Core Data's persistent history tracking.
    /// Off, nothing is written. Turning it on starts the history at the next commit;
    /// opening a tracked store with it off deletes the history (tokens then expire).
    public var historyTracking = false
    /// How much history is kept at most; older entries go when the store opens and
    /// when ``ObjectStore/compact(force:bytesPerSecond:)`` runs (``ObjectStore/trimHistory()``).
    public var historyRetention = HistoryRetention()
    /// How often a store opened read-only polls for the writer's commits while a
    /// ``ObjectStore/changes(after:)`` consumer waits: the bound on how late another
    /// process's commit is seen.
    public var refreshInterval: Duration = .milliseconds(50)
    /// Whether compaction writes the records of older layouts (left by lightweight
    /// migrations run in place) in their entity's current layout as it copies them, so
    /// that reads stop forwarding them and the layouts leave the table (docs/FORMAT.md
    /// §11.4). Off, compaction copies them as they are and
    /// ``ObjectStore/rewriteOlderLayouts(batchSize:)`` remains the way to rewrite them.
    public var compactionRewritesOlderLayouts = true

    /// Default options: segment log, durable commits, no migration.
    public init() {}
}
