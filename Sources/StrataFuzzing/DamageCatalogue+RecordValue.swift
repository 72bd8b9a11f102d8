/// A record's value as the object layer encodes it (FORMAT.md §11): a counter record
/// (serial 0: the next serial), an edge (§11.2: version, owner, member, positions) or
/// an object (§11.1: codec version, layout id, field count, and per field its tag, value
/// kind and lengths, reference keys, blob index and raw length). Values themselves
/// (a string's bytes, a double's bits) are data, not structure, and are left alone:
/// a store cannot tell a changed value whose checksum was recomputed from the one written.
extension DamageCatalogue {
    static func recordValue(_ c: inout DamageCursor, key: UInt64, end: Int, facts: DamageFacts) {
        guard end > c.position else { return }
        let tag = key >> 48, serial = key & 0xFFFF_FFFF_FFFF
        if serial == 0 {
            if end - c.position == 8 { c.field("counter.nextSerial", 8) }
        } else if facts.edgeTags[tag] != nil {
            guard end - c.position == 33 else { return }
            c.field("edge.version", 1)
            c.field("edge.owner", 8)
            c.field("edge.member", 8)
            c.field("edge.ownerPosition", 8)
            c.field("edge.memberPosition", 8)
        } else if let entity = facts.entityTags[tag] {
            objectValue(&c, entity: entity, end: end, facts: facts)
        }
    }

    static func objectValue(_ c: inout DamageCursor, entity: String, end: Int, facts: DamageFacts) {
        let recordLabel = c.label
        guard let version = c.field("value.version", 1, pattern: "object.version") else { return }
        var layoutID: UInt64 = 1
        if version >= 2 {
            guard let id = c.varint("value.layoutID", pattern: "object.layoutID") else { return }
            layoutID = id
        }
        let layout = facts.layouts[entity]?[layoutID] ?? []
        guard let count = c.varint("value.fieldCount", pattern: "object.fieldCount") else { return }
        for n in 0..<Int(min(count, 1000)) where c.position < end {
            let field = n < layout.count ? layout[n] : DamageFacts.LayoutField(name: "?", type: "?")
            c.label = "\(recordLabel) value layout \(layoutID) field[\(n)] (\(field.name))"
            let kind = "object.field[\(field.type)]"
            guard let tag = c.field("tag", 1, pattern: "\(kind).tag") else { return }
            switch tag {
            case 1: // a value: its kind, then its bytes
                guard let valueKind = c.field("kind", 1, pattern: "\(kind).kind") else { return }
                switch valueKind {
                case 1: c.skip(1)
                case 2: skipVarint(&c)
                case 3, 6: c.skip(8)
                case 4, 5, 7, 9, 10:
                    guard let length = c.varint("length", pattern: "\(kind).length") else { return }
                    c.skip(Int(min(length, UInt64(c.remaining))))
                case 8: c.skip(16)
                default: return
                }
            case 2: // an external binary: the index of its blob reference, its raw length
                c.varint("blobIndex", pattern: "\(kind).blob.index")
                c.varint("rawLength", pattern: "\(kind).blob.rawLength")
            case 3:
                c.field("reference", 8, pattern: "\(kind).reference")
            case 4:
                guard let references = c.varint("referenceCount", pattern: "\(kind).references.count") else { return }
                for r in 0..<min(references, 1000) { c.field("reference[\(r)]", 8, pattern: "\(kind).references.key") }
            default:
                break
            }
        }
        c.label = recordLabel
    }

    static func skipVarint(_ c: inout DamageCursor) {
        while c.remaining > 0 {
            let byte = c.bytes[c.position]
            c.skip(1)
            if byte < 0x80 { return }
        }
    }
}
