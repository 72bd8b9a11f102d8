/// How much disk a store uses and how much of it is garbage.
public struct StoreUsage: Sendable, Equatable {
    public var segmentCount: Int
    /// Bytes of all segment files.
    public var segmentBytes: Int64
    /// Bytes of the records that are current versions, as encoded before compression:
    /// with compressed blocks it can exceed ``segmentBytes``. The garbage ratios compare
    /// it with ``recordBytes``, counted the same way.
    public var liveRecordBytes: Int64
    /// Bytes of every committed record, superseded ones included, before compression.
    public var recordBytes: Int64
    public var blobFileCount: Int
    public var blobBytes: Int64
    /// Bytes of blobs that current versions reference.
    public var liveBlobBytes: Int64

    /// The usage of a store type of its own: a server's tables are its "segments".
    package init(segmentCount: Int = 0, segmentBytes: Int64 = 0, liveRecordBytes: Int64 = 0, recordBytes: Int64 = 0,
                blobFileCount: Int = 0, blobBytes: Int64 = 0, liveBlobBytes: Int64 = 0) {
        self.segmentCount = segmentCount
        self.segmentBytes = segmentBytes
        self.liveRecordBytes = liveRecordBytes
        self.recordBytes = recordBytes
        self.blobFileCount = blobFileCount
        self.blobBytes = blobBytes
        self.liveBlobBytes = liveBlobBytes
    }

    // The ratios are computed in floating point: the counters come from the manifest,
    // and an edited one may hold any value (FORMAT.md §4.8); a ratio stays in 0...1.

    /// The share of record bytes that are superseded versions.
    public var recordGarbageRatio: Double {
        Self.share(Double(recordBytes) - Double(liveRecordBytes), of: Double(recordBytes))
    }

    /// The share of blob bytes no current version references.
    public var blobGarbageRatio: Double {
        Self.share(Double(blobBytes) - Double(liveBlobBytes), of: Double(blobBytes))
    }

    /// The share of record and blob bytes together that compaction could reclaim.
    public var garbageRatio: Double {
        let total = Double(recordBytes) + Double(blobBytes)
        return Self.share(total - Double(liveRecordBytes) - Double(liveBlobBytes), of: total)
    }

    private static func share(_ part: Double, of total: Double) -> Double {
        total > 0 ? min(1, max(0, part / total)) : 0
    }
}

extension LogStore {
    /// Disk use and garbage, from the index and the files' sizes (no scan).
    public var usage: StoreUsage {
        state.withLock { s in
            var usage = StoreUsage(segmentCount: s.manifest.segments.count, segmentBytes: 0, liveRecordBytes: 0, recordBytes: 0,
                                   blobFileCount: s.manifest.blobFiles.count, blobBytes: 0, liveBlobBytes: 0)
            for info in s.manifest.segments {
                usage.segmentBytes = IndexCounters.saturatingSum(usage.segmentBytes, (try? s.segmentFiles[info.id]?.size()) ?? 0)
                usage.liveRecordBytes = IndexCounters.saturatingSum(usage.liveRecordBytes, s.index.counters.liveBytesBySegment[info.id] ?? 0)
                usage.recordBytes = IndexCounters.saturatingSum(usage.recordBytes, s.recordBytesBySegment[info.id] ?? 0)
            }
            for info in s.manifest.blobFiles {
                usage.blobBytes = IndexCounters.saturatingSum(usage.blobBytes, max(0, ((try? s.blobFiles[info.id]?.size()) ?? 0) - Int64(Format.blobHeaderSize)))
                usage.liveBlobBytes = IndexCounters.saturatingSum(usage.liveBlobBytes, s.index.counters.liveBytesByBlobFile[info.id] ?? 0)
            }
            return usage
        }
    }
}
