/// What one compaction did.
public struct CompactionReport: Sendable, Equatable, CustomStringConvertible {
    public var segmentsCompacted = 0
    public var segmentsWritten = 0
    public var recordsRewritten = 0
    public var tombstonesDropped = 0
    public var segmentBytesBefore: Int64 = 0
    public var segmentBytesAfter: Int64 = 0
    public var blobFilesCollected = 0
    public var blobBytesReclaimed: Int64 = 0
    /// Blobs copied out of collected blob files into a new one (live ones only).
    public var blobsMoved = 0
    /// Copied records written again in a new form: an object store's records of older
    /// layouts, written in their entity's current layout (`StoreOptions.compactionRewritesOlderLayouts`).
    /// Zero for a store used through the engine alone.
    public var recordsReencoded = 0
    /// Segment groups compacted, each ended by one manifest swap.
    public var steps = 0
    /// The longest the compaction held commits off: the seal of the active segment or
    /// the roll of the active blob file it may start with, a group's swap, or the
    /// collection of blob files, which holds them while it reads every index file
    /// (reads never wait for any of these).
    public var longestPause: Duration = .zero
    /// From the start of the compaction to its end, throttling included.
    public var duration: Duration = .zero

    package init() {}

    /// Counts a hold of the writer lock (`held`) toward ``longestPause``.
    mutating func countPause(_ held: Duration) {
        longestPause = max(longestPause, held)
    }

    public var description: String {
        "compacted \(segmentsCompacted) segments (\(segmentBytesBefore) → \(segmentBytesAfter) bytes) into \(segmentsWritten), rewrote \(recordsRewritten) records (\(recordsReencoded) re-encoded), dropped \(tombstonesDropped) tombstones, collected \(blobFilesCollected) blob files (\(blobBytesReclaimed) bytes reclaimed, \(blobsMoved) blobs moved) in \(steps) steps, \(duration), longest pause \(longestPause)"
    }
}
