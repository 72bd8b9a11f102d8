import Logging
import Synchronization

/// A store directory: the append-only segment log, its blob area, manifest and index files.
///
/// `LogStore` is the storage engine under the object layer. It keeps versions of
/// keyed records; a transaction (`WriteBatch`) becomes visible whole or not at all.
/// It is `Sendable`: one writer at a time, readers on any thread, concurrently with
/// writes and compaction.
///
/// ```swift
/// let store = try LogStore.open(at: "/var/lib/app/Employees.strata")
/// var batch = WriteBatch()
/// batch.put(RecordKey(1), value: Array("Ada".utf8))
/// try store.commit(batch)
/// let record = try store.get(RecordKey(1))
/// ```
public final class LogStore: Sendable {
    /// The store's directory.
    public let path: String
    public let options: LogStoreOptions
    let paths: StorePaths
    package let fileSystem: any FileSystem
    package let logger: Logger
    let counters = StatisticsCounters()
    let blockCache: BlockCache
    /// Set above a segment id in this store's block-cache keys (bits 32…62), unique to
    /// this opening: stores that share a cache (a staging store and its owner) may
    /// number segments alike.
    let cacheNamespace: UInt64
    /// The last sequence when the store opened: a close seals the active segment only
    /// when this session committed (``LogStoreOptions/sealAtCloseMinimumKeys``).
    let openedAtSequence: UInt64
    private static let cacheNamespaces = Atomic<UInt64>(1)
    let lockHandle: (any FileLock)?
    /// Short-held: index, open files, manifest, sequence. Never held during I/O on
    /// the write path, so reads proceed while a commit fsyncs.
    let state: Locked<State>
    /// Held for a whole commit, roll or manifest swap: one writer at a time.
    let writer: Locked<WriterState>
    /// Held by the object layer across a save's checks and its commit
    /// (`RecordStore.exclusively`): the file lock makes this process the store's only
    /// writer, so a lock in it is enough to keep other commits out in between.
    package let commitSection = Locked(())
    /// One compaction at a time.
    let compactionGate = Locked(false)
    /// Held by a compaction from start to end (a backup holds only the gate): `close()`
    /// takes it to wait for one it stopped.
    let compactionRunning = Locked(())
    /// Set by ``stopCompaction()``: a compaction under way stops at its next frame.
    let compactionStopped = Atomic<Bool>(false)
    /// One rebuild of a damaged index file at a time (never the writer lock: a commit
    /// holding it may be the reader that found the damage).
    let indexRepairGate = Locked(0)
    /// What compaction applies to each current record it copies (``setRecordRewriter(_:)``).
    let recordRewriter = Locked<RecordRewriter?>(nil)
    /// The sequence after which compaction keeps every version (``setVersionRetention(_:)``).
    let versionRetention = Locked<(@Sendable (LogStore) throws -> VersionRetention?)?>(nil)
    /// Segments below this id are rewritten whatever their garbage (``rewriteSegments(below:)``).
    let rewriteBelow = Locked<UInt32?>(nil)
    /// Called with the step's number when a compaction step has written its outputs
    /// and is about to swap them in, holding no lock: where tests commit between a
    /// step's copy and its swap, and where crash workers stop a process.
    package let compactionWillSwap = Locked<(@Sendable (Int) throws -> Void)?>(nil)
    /// Called with a segment's id when a compaction step has read it, holding no lock:
    /// where tests commit between the segments of one step.
    package let compactionDidReadSegment = Locked<(@Sendable (UInt32) throws -> Void)?>(nil)
    /// Called when a compaction starts collecting blob files, holding the writer lock:
    /// where tests make that hold last.
    package let compactionWillCollectBlobFiles = Locked<(@Sendable () -> Void)?>(nil)
    /// The most keys a compaction step gathers of the commits made while it ran; past
    /// it, the step checks its own copies against the index instead, so that a bulk
    /// commit during a step does not grow the step's memory. Tests lower it.
    package let compactionWrittenKeysLimit = Locked(1 << 16)
    /// Durable commits wait here, outside the writer lock, for an fsync that covers them.
    let groupCommit: GroupCommit
    /// Frees the space of files compaction retired once no one holds them (`close()` stops it).
    package let reclaimer: FileReclaimer
    /// Set on a snapshot (``snapshot()``): its files are its store's, which closes them.
    let isSnapshot: Bool
    /// The store a snapshot was taken of (the root store for a snapshot of a snapshot).
    let snapshotRoot: LogStore?
    /// The snapshots taken of this store and not yet released: a close ends them.
    let snapshots = Locked<[ObjectIdentifier: WeakSnapshot]>([:])

    /// Given a current record compaction copies, its new value, blobs and terms, or nil
    /// to copy it as it is. It must keep the record's meaning: the object layer uses it
    /// to write records of older layouts in the current one (FORMAT.md §8, §11.4).
    package typealias RecordRewriter = @Sendable (Record) throws -> Record?

    /// Installs the rewriter compaction applies to the records it copies; nil removes it.
    package func setRecordRewriter(_ rewriter: RecordRewriter?) {
        recordRewriter.withLock { $0 = rewriter }
    }

    /// Has compaction keep, from now on, every version newer than the sequence
    /// `retention` answers when a compaction starts, and for each key the newest
    /// version at or below it, so that ``snapshot(asOf:)`` can read the store as of any
    /// sequence from there on (FORMAT.md §8). Nil (or a nil answer) keeps current
    /// versions only; an error it throws stops the compaction. The object layer keeps
    /// what its history's horizon needs. `retention` is handed the store rather than
    /// capturing it: a weak capture would move the store's reference count to a side
    /// table, which makes every retain and release of it slower.
    package func setVersionRetention(_ retention: (@Sendable (LogStore) throws -> VersionRetention?)?) {
        versionRetention.withLock { $0 = retention }
    }

    /// Whether this is a snapshot read as of a sequence before its store's last
    /// (``snapshot(asOf:)``): keys a retention exempts may not read as they were.
    package var readsAsOfThePast: Bool { state.withLock { $0.readsAsOfThePast } }

    /// The oldest sequence before ``lastSequence`` that ``snapshot(asOf:)`` can read as
    /// of: compaction has dropped versions below it. ``lastSequence`` itself can always
    /// be read. It lies above ``lastSequence`` after a migration's swap, and is
    /// 2⁶⁴ − 1 when the manifest's value is malformed (FORMAT.md §6.3).
    public var versionFloor: UInt64 {
        state.withLock { $0.manifest.versionFloor(lastSequence: $0.lastSequence) }
    }

    /// Makes compaction rewrite every segment whose id is below `id`, garbage or not,
    /// with the record rewriter (nil: only segments past the garbage ratio): the object
    /// layer's background rewrite of records of older layouts, which only segments
    /// older than the layout's replacement can hold.
    package func rewriteSegments(below id: UInt32?) {
        rewriteBelow.withLock { $0 = id }
    }

    /// The id the next segment will get: every segment made from now on is at or above it.
    package var nextSegmentID: UInt32 { state.withLock { $0.manifest.nextSegmentID } }

    /// The id set by ``rewriteSegments(below:)``, nil when none is.
    package var segmentsRewrittenBelow: UInt32? { rewriteBelow.withLock { $0 } }

    /// Whether any record lies in a segment whose id is below `id` (an empty active
    /// segment holds none).
    package func holdsRecords(inSegmentsBelow id: UInt32) -> Bool {
        writer.withLock { w in
            if w.segmentID < id && w.segmentEnd > Int64(Format.segmentHeaderSize) { return true }
            return state.withLock { s in s.manifest.segments.contains { $0.state == .sealed && $0.id < id } }
        }
    }

    struct State: Sendable {
        var index = StoreIndex()
        var segmentFiles: [UInt32: any StorageFile] = [:]
        var blobFiles: [UInt32: any StorageFile] = [:]
        var manifest: Manifest
        var lastSequence: UInt64 = 0
        /// Where the bytes of the last commit end (or, after a roll, where the new
        /// segment starts): durable there means durable through `lastSequence`.
        var lastCommitEnd = LogPoint(segment: 0, end: 0)
        /// Every commit up to this sequence is known to be durable (group commit's
        /// waits and `syncVisible(through:)` raise it).
        var durableSequence: UInt64 = 0
        /// Bytes of all committed records per segment (superseded ones too).
        var recordBytesBySegment: [UInt32: Int64] = [:]
        /// Bytes of superseded versions that compaction kept for a retention, per
        /// segment and blob file it wrote them to, as far as this process knows: left
        /// out of the garbage compaction chooses by while the retention is below
        /// `until` (the greatest sequence of the versions that superseded them, past
        /// which every one of them may be reclaimed), so that it does not rewrite them
        /// at every run. Not kept on disk: after a reopen they count as garbage again,
        /// until the first compaction that meets them learns them anew.
        var keptBytesBySegment: [UInt32: KeptBytes] = [:]
        var keptBytesByBlobFile: [UInt32: KeptBytes] = [:]
        /// Blobs written but not yet referenced by a commit, per blob file. Compaction
        /// must not collect a file that holds one: the commit that references it may
        /// be on its way. A blob never committed pins its file until the store reopens.
        var pendingBlobs: [BlobRef: Int] = [:]
        var pendingBlobFiles: [UInt32: Int] = [:]
        /// Blob files of the store a staging store belongs to: referenced, never owned.
        var foreignBlobFiles: Set<UInt32> = []
        /// Set on a staging store (FORMAT.md §10).
        var isStaging = false
        /// Blob files that earlier staging stores of the same migration wrote, by path:
        /// a chained migration's records may reference them, so the swap moves them
        /// into the store together with this staging store's own.
        var carriedBlobPaths: [UInt32: String] = [:]
        /// Set when the directory fsync after removing retired files failed: their
        /// removal may not survive a power loss, so the retired list keeps every id
        /// until the store reopens (else the files come back unlisted, and open refuses).
        var removalsNotDurable = false
        /// A format-1 store whose index files are still in memory: its first write
        /// upgrades it to format 2 (FORMAT.md §12), with these counters of its sealed segments.
        var legacySealedCounters: IndexCounters?
        /// Sealed segments whose index file on disk is damaged or missing and was rebuilt
        /// in memory only (the store may not write it): reads are sound, the file is not,
        /// and `verify()` says so.
        var indexFilesRebuiltInMemory: Set<UInt32> = []
        /// Set on a snapshot read as of a sequence before its store's last.
        var readsAsOfThePast = false
        /// Set when a write or fsync failed: the store is read-only until reopened.
        var failure: StrataError?
        var isClosed = false
    }

    struct WriterState: Sendable {
        var segmentID: UInt32
        var segmentFile: (any StorageFile)?
        var segmentEnd: Int64
        var segmentMinSequence: UInt64 = .max
        var segmentMaxSequence: UInt64 = 0
        var blobID: UInt32
        var blobFile: (any StorageFile)?
        var blobEnd: Int64
        var blobDirty = false
        var segmentDirty = false
        var lastSync = ContinuousClock.now
    }

    init(path: String, options: LogStoreOptions, fileSystem: any FileSystem, logger: Logger, lock: (any FileLock)?, state: State, writer: WriterState, cache: BlockCache,
         snapshotOf parent: LogStore? = nil) {
        self.path = path
        self.paths = StorePaths(path)
        self.options = options
        self.fileSystem = fileSystem
        self.logger = logger
        self.lockHandle = lock
        self.reclaimer = FileReclaimer { [paths = StorePaths(path)] in
            fileSystem.readerRegistry.readersHold(paths.lock)
        }
        // Made before the store, because open reads index files through it.
        self.blockCache = cache
        // A snapshot reads its store's frames, which never change once written: it
        // shares their cache entries.
        self.cacheNamespace = parent?.cacheNamespace ?? (Self.cacheNamespaces.wrappingAdd(1, ordering: .relaxed).oldValue & 0x7FFF_FFFF) << 32
        self.isSnapshot = parent != nil
        self.snapshotRoot = parent
        self.openedAtSequence = state.lastSequence
        var state = state
        let end = LogPoint(segment: writer.segmentID, end: writer.segmentEnd)
        state.lastCommitEnd = end
        // A store that commits vouches at open only for what an fsync covered: sealed
        // segments were synced when sealed, but records in the active segment may be in
        // the page cache alone (the writer before was killed between an append and its
        // fsync), so the first commit or history read syncs them, as group commit does
        // below. A read-only store may be reading another process's appends, and a
        // snapshot its store's: neither vouches for them before an fsync or its store.
        let committing = !options.readOnly && parent == nil
        let activeHoldsRecords = writer.segmentMinSequence != .max && writer.segmentMinSequence > 0
        let activeUnvouched = committing && activeHoldsRecords
        state.durableSequence = !committing ? 0 : activeHoldsRecords ? writer.segmentMinSequence - 1 : state.lastSequence
        self.state = Locked(state)
        var writer = writer
        // For the same reason `sync()` and `close()` fsync the active segment even when
        // this store appends nothing.
        if activeUnvouched { writer.segmentDirty = true }
        self.writer = Locked(writer)
        let counters = self.counters
        let stateLock = self.state
        let logger = logger
        let path = path
        self.groupCommit = GroupCommit(committing: committing, onSync: { counters.syncs.add(1) }, onFailure: { error in
            // As `fail(_:)`: the store refuses writes until reopened.
            let failure = (error as? StrataError) ?? StrataError(.io, "\(error)", path: path)
            stateLock.withLock { s in if s.failure == nil { s.failure = failure } }
            logger.warning("store is read-only until reopened", metadata: ["path": "\(path)", "error": "\(failure)"])
            return failure
        })
        groupCommit.reset(file: writer.segmentFile, durable: activeUnvouched ? LogPoint(segment: writer.segmentID, end: 0) : end)
    }

    deinit {
        lockHandle?.unlock()
    }

    /// What the engine has read and written since open or the last reset.
    public var statistics: LogStatistics {
        var statistics = counters.snapshot()
        (statistics.blockCacheLookups, statistics.blockCacheHits) = blockCache.lookupsAndHits
        return statistics
    }

    /// Sets every statistics counter back to zero.
    public func resetStatistics() { counters.reset() }

    /// The store's unique id, fixed at creation.
    public var storeID: [UInt8] { state.withLock { $0.manifest.storeID } }

    /// The sequence number of the last committed transaction.
    public var lastSequence: UInt64 { state.withLock { $0.lastSequence } }

    /// The number of live (not deleted) keys.
    public var count: Int { state.withLock { $0.index.count } }

    /// The number of live keys in `range`. A range covering one whole 16-bit key prefix
    /// (the object layer's entity), give or take a few keys at its start, is answered
    /// from counters the manifest keeps; any other range walks its keys.
    public func count(in range: Range<RecordKey>?) throws -> Int {
        try readIndexLogging { try $0.index.count(in: range) }
    }

    /// The caller's metadata, kept in the manifest (the object layer stores the model hash here).
    public var metadata: [String: [UInt8]] { state.withLock { $0.manifest.callerMetadata } }

    /// The on-disk format version of this store.
    public var formatVersion: UInt32 { state.withLock { $0.manifest.version } }

    func checkWritable() throws {
        if let refusal = writeRefusal { throw refusal }
    }

    /// Why the store refuses writes — `.closed`, or `.readOnly` when opened read-only or
    /// after a failed write or fsync (until reopened) — or nil while it accepts them.
    public var writeRefusal: StrataError? {
        state.withLock { s in
            if s.isClosed { return StrataError(.closed, "the store is closed", path: path) }
            if options.readOnly { return StrataError(.readOnly, "the store was opened read-only", path: path) }
            if let failure = s.failure {
                return StrataError(.readOnly, "the store is read-only after an earlier failure until reopened: \(failure.message)", path: failure.path ?? path, errno: failure.errno)
            }
            return nil
        }
    }

    /// Records a write-path failure: the store refuses writes until reopened, because
    /// after a failed fsync the kernel may have dropped dirty pages while a retried
    /// fsync reports success (DESIGN.md, durability protocol).
    func fail(_ error: any Error) {
        let failure = (error as? StrataError) ?? StrataError(.io, "\(error)", path: path)
        let first = state.withLock { s in
            guard s.failure == nil else { return false }
            s.failure = failure
            return true
        }
        groupCommit.fail(failure)
        // Said once: a failure is reported by each layer it passes through.
        if first { logger.warning("store is read-only until reopened", metadata: ["path": "\(path)", "error": "\(failure)"]) }
    }
}

/// What compaction keeps for reads as of past sequences (``LogStore/setVersionRetention(_:)``):
/// every version newer than `sequence`, and each key's newest at or below it — but for
/// keys in `exempt`, whose superseded versions go as if there were no retention (the
/// object layer's history entries: a read as of the past never asks for them).
package struct VersionRetention: Sendable {
    package var sequence: UInt64
    package var exempt: Range<RecordKey>?

    package init(after sequence: UInt64, exempt: Range<RecordKey>? = nil) {
        self.sequence = sequence
        self.exempt = exempt
    }
}
