/// How a `LogStore` opens and writes.
public struct LogStoreOptions: Sendable {
    /// When commits become durable.
    public enum Durability: Sendable, Equatable {
        /// fsync before `commit` returns: a returned commit survives power loss. The default.
        case everyCommit
        /// fsync at the first commit after `milliseconds` have passed since the last
        /// fsync, on `sync()`, roll and close. A power loss may lose the commits of the
        /// last interval, never a commit in part, and what survives is a prefix.
        case periodic(milliseconds: Int)
        /// fsync only on `sync()`, roll and close: the fastest, for bulk loads that can
        /// be redone. What survives a power loss is still a prefix of the commits.
        case none
    }

    public var durability: Durability = .everyCommit
    /// Open without the write lock; writes throw `.readOnly`. Torn tails are ignored, not truncated.
    public var readOnly = false
    /// Create the store when the directory holds none.
    public var createIfMissing = true
    /// The active segment is sealed and a new one started past this size.
    public var segmentSizeLimit = 64 << 20
    /// The active blob file is sealed and a new one started past this size.
    public var blobFileSizeLimit = 256 << 20
    /// Records are packed into blocks of about this many raw bytes before compression.
    /// A random read decompresses one whole block: larger blocks compress better (small
    /// records share more context) and read slower once the store outgrows the block
    /// cache.
    public var blockSize = 4 << 10
    /// Bytes of decompressed record blocks and index file blocks kept in memory for
    /// reads (0 turns it off). With the index on disk (FORMAT.md §7) this cache and the
    /// active segment's overlay are the engine's memory, whatever the store's size.
    public var blockCacheBytes = 24 << 20
    /// The active segment is sealed (and its index written to disk) once it holds this
    /// many keys, so the in-memory overlay stays bounded: about 150 bytes a key plus
    /// its terms. A single transaction larger than this still goes whole into one
    /// segment; the roll follows its commit. (A transaction committed in chunks,
    /// `LogStore.commit(chunks:)`, never enters the overlay: see ``bulkSortBatch``; nor
    /// does one found committed but unsealed at open, which seals the segment around it.)
    public var overlayEntryLimit = 65_536
    /// A clean close seals the active segment (FORMAT.md §4.3) when this session
    /// committed and the segment's overlay holds at least this many keys, so that the
    /// next open reads its index file instead of replaying the segment into memory
    /// (about 150 bytes a key, and the time to read it): as RocksDB flushes its
    /// memtable at close. A smaller segment stays active and is replayed, cheaply, so
    /// that a store opened and closed often does not pile up small segments. nil:
    /// never at close.
    public var sealAtCloseMinimumKeys: Int? = 8_192
    /// A chunked commit (`LogStore.commit(chunks:)`) sorts its index entries and terms
    /// in batches of this many, each spilled to a scratch file in `index/` when full,
    /// so its memory does not follow the transaction's size: about 100 bytes an item.
    public var bulkSortBatch = 65_536
    /// LZ4-compress record blocks when it saves an eighth or more.
    public var compressRecords = true
    /// LZ4-compress blobs when it saves an eighth or more (incompressible ones stay as they are).
    public var compressBlobs = true
    /// Segments whose superseded bytes exceed this share are compacted.
    public var compactionGarbageRatio = 0.3
    /// Compaction rewrites input segments in groups of about this many bytes (or of
    /// four times ``overlayEntryLimit`` keys, whichever comes first), swapping the
    /// manifest after each group, so its memory and its crash window stay bounded. The
    /// segments it writes seal at ``overlayEntryLimit`` keys, as the active one does.
    public var compactionBatchBytes = 64 << 20
    /// At most this many bytes of records a second read by compaction (nil: as fast as
    /// it goes). A service that compacts beside requests caps it so that compaction
    /// takes a share of the disk and a core rather than all of them.
    public var compactionBytesPerSecond: Int?
    /// Compaction writes out what it wrote — segments, blob files and index files — every
    /// this many bytes (nil: only when a file is complete, by its fsync), as RocksDB's
    /// `bytes_per_sync`: data only (`sync_file_range`), waited for, not an fsync. A
    /// durable commit's fsync waits for the dirty pages the file system makes it write
    /// and for a journal commit under way, so the fewer compaction leaves dirty and the
    /// fewer journal commits it makes, the less a commit that meets it waits.
    public var compactionBytesPerSync: Int? = 256 << 10

    /// What open does when the active segment has a damaged frame followed by two or
    /// more intact transactions — damage in the middle of the log, not a torn tail.
    /// By default open refuses with `.corrupt` naming the file and offset; with
    /// `salvageDamagedTail` it cuts the log at the damage (losing those transactions)
    /// and logs what it dropped. A torn tail is always cut without asking.
    public var salvageDamagedTail = false

    /// A directory where a read-only store may write scratch files, as SQLite's
    /// `temp_store_directory`: `verify()` then rebuilds each sealed segment's index
    /// file through sorters that spill there, holding a sorter's batch rather than the
    /// segment's entries (a segment sealed around one chunked commit holds millions).
    /// nil (the default) writes nothing anywhere and rebuilds in memory. A store that
    /// may write uses its own `index/` directory and ignores this.
    public var scratchDirectory: String?

    /// Open checks the whole store before it answers anything, as LevelDB's
    /// `paranoid_checks`: it runs ``LogStore/verify()`` — every frame read, every
    /// index file rebuilt from its segment and compared byte for byte, every counter
    /// recounted, every referenced blob read — and refuses a store it finds unsound
    /// with `.corrupt` naming the first problem. An index file whose checksums hold
    /// but whose entries were edited can then no longer answer wrongly (FORMAT.md,
    /// "Trust model"). Open then reads the whole store: its time grows with the
    /// store's size, its memory does not.
    public var paranoidChecks = false

    public init() {}
}
