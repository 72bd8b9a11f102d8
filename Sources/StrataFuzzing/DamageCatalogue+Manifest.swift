/// The manifest's fields (FORMAT.md §6.1): header, segment and blob file lists, the
/// metadata's lengths, and the counters of version 2 (live bytes per segment and per
/// blob file, live keys per key prefix). Every edit recomputes the trailing CRC.
extension DamageCatalogue {
    static func manifestFields(_ path: String, _ bytes: [UInt8], facts: DamageFacts) -> [DamageField] {
        var c = DamageCursor(path: path, bytes: bytes)
        c.group = "MANIFEST"
        c.label = "MANIFEST"
        c.repairs = [.trailer]
        c.field("magic", 8)
        c.field("version", 4)
        c.field("flags", 4)
        c.field("storeUUID", 8)
        c.skip(8)
        c.field("generation", 8)
        c.field("nextSegmentID", 4)
        c.field("nextBlobID", 4)
        guard let segments = c.field("segmentCount", 4) else { return c.fields }
        for n in 0..<min(segments, 1000) {
            let id = c.peek(4) ?? 0
            let state = c.peek(1, at: c.position + 4) == 1 ? "active" : "sealed"
            c.label = "MANIFEST segment[\(n)] (id \(id), \(state))"
            c.field("id", 4, pattern: "segment.id")
            c.field("state", 1, pattern: "segment.state")
            c.field("minSequence", 8, pattern: "segment.minSequence")
            c.field("maxSequence", 8, pattern: "segment.maxSequence")
        }
        c.label = "MANIFEST"
        guard let blobFiles = c.field("blobFileCount", 4) else { return c.fields }
        for n in 0..<min(blobFiles, 1000) {
            c.label = "MANIFEST blobFile[\(n)] (id \(c.peek(4) ?? 0))"
            c.field("id", 4, pattern: "blobFile.id")
            c.field("state", 1, pattern: "blobFile.state")
        }
        c.label = "MANIFEST"
        guard let metadata = c.field("metadataCount", 4) else { return c.fields }
        for n in 0..<min(metadata, 1000) {
            let key = n < facts.metadata.count ? facts.metadata[Int(n)].key : "?"
            c.label = "MANIFEST metadata[\(n)] (\(key))"
            guard let keyLength = c.field("keyLength", 2, pattern: "metadata.keyLength") else { return c.fields }
            c.skip(Int(keyLength))
            guard let valueLength = c.field("valueLength", 4, pattern: "metadata.valueLength") else { return c.fields }
            c.skip(Int(valueLength))
        }
        c.label = "MANIFEST counters"
        guard let segmentLive = c.field("segmentCount", 4, pattern: "counters.segmentCount") else { return c.fields }
        for n in 0..<min(segmentLive, 1000) {
            c.label = "MANIFEST counters segment[\(n)] (id \(c.peek(4) ?? 0))"
            c.field("id", 4, pattern: "counters.segment.id")
            c.field("liveBytes", 8, pattern: "counters.segment.liveBytes")
        }
        c.label = "MANIFEST counters"
        guard let blobLive = c.field("blobCount", 4, pattern: "counters.blobCount") else { return c.fields }
        for n in 0..<min(blobLive, 1000) {
            c.label = "MANIFEST counters blob[\(n)] (id \(c.peek(4) ?? 0))"
            c.field("id", 4, pattern: "counters.blob.id")
            c.field("liveBytes", 8, pattern: "counters.blob.liveBytes")
        }
        c.label = "MANIFEST counters"
        guard let prefixes = c.field("prefixCount", 4, pattern: "counters.prefixCount") else { return c.fields }
        for n in 0..<min(prefixes, 1000) {
            let prefix = c.peek(2) ?? 0
            c.label = "MANIFEST counters prefix[\(n)] (\(facts.entityTags[prefix] ?? facts.edgeTags[prefix] ?? "tag \(prefix)"))"
            c.field("prefix", 2, pattern: "counters.prefix")
            c.field("liveKeys", 8, pattern: "counters.prefix.liveKeys")
        }
        return c.fields
    }
}
