extension Manifest {
    /// The metadata key of the retired-file list (FORMAT.md §6.3): the ids of segment
    /// and blob files a manifest swap stopped naming (compaction's inputs, collected
    /// blob files, the segments a migration replaced) whose deletion may not have
    /// finished. Open removes an unlisted file only when it is one of these or newer
    /// than the manifest (a leftover of work no manifest named yet); any other
    /// unlisted file may hold acknowledged data the manifest lost, and is kept.
    /// Reserved by the engine: ``LogStore/metadata`` does not show it and
    /// ``LogStore/setMetadata(_:)`` keeps it.
    static let retiredKey = "strata.log.retired"

    /// Segment ids in the retired list.
    var retiredSegments: Set<UInt32> { Set(Self.decodeRetired(metadata[Self.retiredKey]).segments) }
    /// Blob file ids in the retired list.
    var retiredBlobFiles: Set<UInt32> { Set(Self.decodeRetired(metadata[Self.retiredKey]).blobs) }

    /// Adds ids to the retired list, keeping earlier ones only while `isPresent` says
    /// their file still exists (deletion is best effort), so the list stays short.
    mutating func retire(segments: [UInt32], blobFiles: [UInt32], isPresent: (_ id: UInt32, _ isBlob: Bool) -> Bool) {
        let old = Self.decodeRetired(metadata[Self.retiredKey])
        let keptSegments = old.segments.filter { isPresent($0, false) && !segments.contains($0) }
        let keptBlobs = old.blobs.filter { isPresent($0, true) && !blobFiles.contains($0) }
        let allSegments = (keptSegments + segments).sorted(), allBlobs = (keptBlobs + blobFiles).sorted()
        guard !allSegments.isEmpty || !allBlobs.isEmpty else {
            metadata[Self.retiredKey] = nil
            return
        }
        var w = ByteWriter(capacity: 8 + 4 * (allSegments.count + allBlobs.count))
        w.u32(UInt32(allSegments.count))
        for id in allSegments { w.u32(id) }
        w.u32(UInt32(allBlobs.count))
        for id in allBlobs { w.u32(id) }
        metadata[Self.retiredKey] = w.bytes
    }

    /// The two id lists; empty for a missing or malformed value (the list only lets
    /// open remove more, so a damaged one makes open keep files, never lose them).
    private static func decodeRetired(_ bytes: [UInt8]?) -> (segments: [UInt32], blobs: [UInt32]) {
        guard let bytes else { return ([], []) }
        var r = ByteReader(bytes)
        func ids() -> [UInt32]? {
            guard let count = try? r.u32(), UInt64(count) * 4 <= UInt64(r.remaining) else { return nil }
            return (0..<count).compactMap { _ in try? r.u32() }
        }
        guard let segments = ids(), let blobs = ids(), r.isAtEnd else { return ([], []) }
        return (segments, blobs)
    }
}
