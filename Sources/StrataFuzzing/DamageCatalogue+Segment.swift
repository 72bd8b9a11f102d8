/// A segment's fields (FORMAT.md §3): the file header, each frame's header, the
/// records of uncompressed records frames (header, blob references, terms, and the
/// value as the object layer encodes it, §11.1–§11.2), commit and seal frames. An
/// LZ4 frame's records are out of reach (the catalogue edits stored bytes); its raw
/// length is not.
extension DamageCatalogue {
    static func segmentFields(_ path: String, _ bytes: [UInt8], id: UInt32, facts: DamageFacts, prefix: String) -> [DamageField] {
        var c = DamageCursor(path: path, bytes: bytes)
        c.group = prefix + (facts.activeSegment == id ? "active segment" : "sealed segment")
        fileHeader(&c, name: "segment \(id)")
        c.position = 48
        while c.remaining >= 12 {
            let start = c.position
            let length = Int(c.peek(4) ?? 0)
            let type = c.peek(1, at: start + 8) ?? 0, flags = c.peek(1, at: start + 9) ?? 0
            let end = min(bytes.count, start + 12 + length)
            let kind = [1: "records", 2: "commit", 3: "seal"][Int(type)] ?? "type \(type)"
            c.label = "segment \(id) frame@\(start) (\(kind))"
            c.repairs = [.frame(start)]
            c.field("length", 4, pattern: "frame.length")
            c.skip(4)
            c.field("type", 1, pattern: "frame.type")
            c.field("flags", 1, pattern: "frame.flags")
            c.field("reserved", 2, pattern: "frame.reserved")
            switch (type, flags & 1) {
            case (1, 0): recordsBlock(&c, end: end, segment: id, frame: start, facts: facts)
            case (1, _): c.field("rawLength", 4, pattern: "frame.lz4.rawLength")
            case (2, _):
                c.field("sequence", 8, pattern: "commit.sequence")
                c.field("recordCount", 4, pattern: "commit.recordCount")
                c.field("frameCount", 4, pattern: "commit.frameCount")
            case (3, _):
                c.field("minSequence", 8, pattern: "seal.minSequence")
                c.field("maxSequence", 8, pattern: "seal.maxSequence")
            default: break
            }
            c.position = end
        }
        return c.fields
    }

    /// The 48-byte header of a segment or blob file (§3.1); its CRC is recomputed.
    static func fileHeader(_ c: inout DamageCursor, name: String) {
        c.label = name
        c.repairs = [.fileHeader]
        c.field("magic", 8, pattern: "header.magic")
        c.field("version", 4, pattern: "header.version")
        c.field("fileID", 4, pattern: "header.fileID")
        c.field("storeUUID", 8, pattern: "header.storeUUID")
    }

    static func recordsBlock(_ c: inout DamageCursor, end: Int, segment: UInt32, frame: Int, facts: DamageFacts) {
        let frameLabel = c.label
        guard let count = c.field("records.count", 4) else { return }
        for n in 0..<min(count, 10_000) where c.position < end {
            let key = c.peek(8, at: c.position + 1) ?? 0
            c.label = "\(frameLabel) record[\(n)] (\(facts.describe(key: key)))"
            c.field("kind", 1, pattern: "record.kind")
            c.field("key", 8, pattern: "record.key")
            c.field("sequence", 8, pattern: "record.sequence")
            guard let valueLength = c.field("valueLength", 4, pattern: "record.valueLength"),
                  let blobs = c.field("blobCount", 2, pattern: "record.blobCount"),
                  let terms = c.field("termCount", 2, pattern: "record.termCount") else { return }
            let valueEnd = min(c.position + Int(valueLength), end)
            recordValue(&c, key: key, end: valueEnd, facts: facts)
            c.position = valueEnd
            let recordLabel = c.label
            for b in 0..<blobs where c.position < end {
                c.label = "\(recordLabel) blobRef[\(b)]"
                blobRef(&c, pattern: "record.blobRef")
            }
            for t in 0..<terms where c.position < end {
                c.label = "\(recordLabel) term[\(t)]"
                c.field("index", 4, pattern: "record.term.index")
                guard let length = c.field("length", 2, pattern: "record.term.length") else { return }
                termValue(&c, length: Int(length), pattern: "record.term.value")
            }
            c.label = recordLabel
        }
    }

    /// A blob reference (§5.3): file, offset, length, checksum.
    static func blobRef(_ c: inout DamageCursor, pattern: String) {
        c.field("file", 4, pattern: "\(pattern).file")
        c.field("offset", 8, pattern: "\(pattern).offset")
        c.field("length", 8, pattern: "\(pattern).length")
        c.field("checksum", 4, pattern: "\(pattern).checksum")
    }

    /// A term's or a fence's value bytes: the first and the last byte, as numbers.
    static func termValue(_ c: inout DamageCursor, length: Int, pattern: String) {
        let start = c.position
        guard length > 0, c.remaining >= length else { c.skip(length); return }
        c.field("value[0]", 1, pattern: "\(pattern)[first]")
        if length > 1 {
            c.position = start + length - 1
            c.field("value[\(length - 1)]", 1, pattern: "\(pattern)[last]")
        }
        c.position = start + length
    }
}
