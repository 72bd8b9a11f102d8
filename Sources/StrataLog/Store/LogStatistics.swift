/// What the engine has read and written since the store opened (or since
/// `resetStatistics()`). Tests and benchmarks use it to prove, for example, that
/// listing names read zero blob bytes.
public struct LogStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Frames whose checksum was verified and payload decoded (reads, scans, recovery).
    public var framesDecoded: Int
    /// Records decoded for callers (`get`, scans).
    public var recordsDecoded: Int
    /// Bytes read from segment files to serve reads (not counting recovery scans).
    public var segmentBytesRead: Int
    /// Bytes appended to segment files.
    public var segmentBytesWritten: Int
    /// Bytes read from blob files.
    public var blobBytesRead: Int
    /// Bytes appended to blob files.
    public var blobBytesWritten: Int
    /// Blobs read.
    public var blobsRead: Int
    /// Blobs written.
    public var blobsWritten: Int
    /// Transactions committed.
    public var commits: Int
    /// fsync calls made.
    public var syncs: Int
    /// Compactions completed.
    public var compactions: Int
    /// Bytes of segment and blob files deleted by compaction.
    public var compactionBytesReclaimed: Int
    /// Record blocks looked up in the block cache, and found there (not reset by
    /// `resetStatistics()`: the cache may be shared by stores).
    public var blockCacheLookups = 0
    public var blockCacheHits = 0

    /// Statistics of another store type (the object layer's `RecordStore`s):
    /// what it does not count stays zero.
    package init(framesDecoded: Int = 0, recordsDecoded: Int = 0, segmentBytesRead: Int = 0, segmentBytesWritten: Int = 0,
                blobBytesRead: Int = 0, blobBytesWritten: Int = 0, blobsRead: Int = 0, blobsWritten: Int = 0,
                commits: Int = 0, syncs: Int = 0, compactions: Int = 0, compactionBytesReclaimed: Int = 0) {
        self.framesDecoded = framesDecoded
        self.recordsDecoded = recordsDecoded
        self.segmentBytesRead = segmentBytesRead
        self.segmentBytesWritten = segmentBytesWritten
        self.blobBytesRead = blobBytesRead
        self.blobBytesWritten = blobBytesWritten
        self.blobsRead = blobsRead
        self.blobsWritten = blobsWritten
        self.commits = commits
        self.syncs = syncs
        self.compactions = compactions
        self.compactionBytesReclaimed = compactionBytesReclaimed
    }

    /// The share of record block lookups the block cache answered (0 before any).
    public var blockCacheHitRatio: Double {
        blockCacheLookups > 0 ? Double(blockCacheHits) / Double(blockCacheLookups) : 0
    }

    public var description: String {
        "frames \(framesDecoded), records \(recordsDecoded), segment bytes read \(segmentBytesRead), written \(segmentBytesWritten), blob bytes read \(blobBytesRead), written \(blobBytesWritten), commits \(commits), syncs \(syncs), compactions \(compactions)"
    }
}
