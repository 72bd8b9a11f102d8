/// What compaction and `count` need without walking keys (FORMAT.md §6.1): live bytes
/// per segment and per blob file, and live keys per 16-bit key prefix (the object
/// layer's entity tag). Kept exact by every commit, roll and compaction swap; the
/// manifest holds the figures of its sealed segments, and open replays the active
/// segment on top of them.
struct IndexCounters: Equatable, Sendable {
    var liveBytesBySegment: [UInt32: Int64] = [:]
    var liveBytesByBlobFile: [UInt32: Int64] = [:]
    var liveCountByPrefix: [UInt16: Int64] = [:]

    static func prefix(_ key: RecordKey) -> UInt16 { UInt16(truncatingIfNeeded: key.rawValue >> 48) }

    static func blobBytes(_ blob: BlobRef) -> Int64 {
        Int64(clamping: blob.length) &+ Int64(Format.blobEntryHeaderSize)
    }

    var liveCount: Int { Int(clamping: liveCountByPrefix.values.reduce(0, Self.saturatingSum)) }

    /// `a + b`, held at the bounds instead of trapping or wrapping: counters read from
    /// a manifest are what its bytes say (an edited one may hold any value), and a sum
    /// of them skews a count or a ratio rather than stopping the process (FORMAT.md §4.8).
    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// Counts `entry` as a current version.
    mutating func add(_ entry: IndexEntry) {
        liveBytesBySegment[entry.location.segment, default: 0] &+= entry.recordBytes
        for blob in entry.blobs { liveBytesByBlobFile[blob.file, default: 0] &+= Self.blobBytes(blob) }
        if !entry.isTombstone { liveCountByPrefix[Self.prefix(entry.key), default: 0] &+= 1 }
    }

    /// Stops counting `entry`, which a newer version replaced (or compaction dropped).
    mutating func remove(_ entry: IndexEntry) {
        liveBytesBySegment[entry.location.segment, default: 0] &-= entry.recordBytes
        for blob in entry.blobs { liveBytesByBlobFile[blob.file, default: 0] &-= Self.blobBytes(blob) }
        if !entry.isTombstone {
            let p = Self.prefix(entry.key)
            liveCountByPrefix[p, default: 0] &-= 1
            if liveCountByPrefix[p] == 0 { liveCountByPrefix[p] = nil }
        }
    }

    /// Keeps only the files a manifest lists.
    mutating func restrict(segments: Set<UInt32>, blobFiles: Set<UInt32>) {
        liveBytesBySegment = liveBytesBySegment.filter { segments.contains($0.key) }
        liveBytesByBlobFile = liveBytesByBlobFile.filter { blobFiles.contains($0.key) }
    }
}

extension IndexCounters {
    /// The counters of `index` recounted: the current version of every key, from one
    /// merge of the overlay and the index files.
    ///
    /// - Throws: `IndexFile.Damage` for an index file that cannot be read.
    init(counting index: StoreIndex) throws {
        var index = index
        var counted = IndexCounters()
        try index.forEachCurrent { counted.add($0) }
        self = counted
    }
}
