/// A blob file's fields (FORMAT.md §5): the file header and each entry's header
/// (magic, flags, stored and raw length). An edit recomputes the entry's data CRC over
/// the stored length it now announces and its header CRC, so only the blob reference
/// of the record (§5.3) and the entry's own rules stand between the damage and a read.
extension DamageCatalogue {
    static func blobFields(_ path: String, _ bytes: [UInt8], id: UInt32, facts: DamageFacts, prefix: String) -> [DamageField] {
        var c = DamageCursor(path: path, bytes: bytes)
        c.group = prefix + (facts.activeBlobFile == id ? "active blob" : "sealed blob")
        fileHeader(&c, name: "blob \(id)")
        c.position = 48
        while c.remaining >= 32 {
            let start = c.position
            c.label = "blob \(id) entry@\(start)"
            c.repairs = [.blobEntry(start)]
            c.field("magic", 4, pattern: "entry.magic")
            c.field("flags", 4, pattern: "entry.flags")
            guard let stored = c.field("storedLength", 8, pattern: "entry.storedLength") else { break }
            c.field("rawLength", 8, pattern: "entry.rawLength")
            c.position = start + 32
            c.skip(Int(min(stored, UInt64(c.remaining))))
        }
        return c.fields
    }
}
