import Foundation

/// What the damage catalogue knows of the template before it walks the files: the
/// manifest's lists and metadata (FORMAT.md §6.1) with where each entry lies, and the
/// object layer's tags and layouts (§11.1, §11.2, §11.4), to name what a record is.
struct DamageFacts {
    struct Metadata {
        var key: String
        var value: [UInt8]
        /// The entry's first byte (its key length) and the byte after its value.
        var start: Int
        var end: Int
    }

    /// One field of a layout, as `strata.layouts` lists it.
    struct LayoutField {
        var name: String
        var type: String
    }

    var sealedSegments: Set<UInt32> = []
    var activeSegment: UInt32?
    var activeBlobFile: UInt32?
    var metadata: [Metadata] = []
    /// The offset of `metadataCount`.
    var metadataCountOffset = 0
    var entityTags: [UInt64: String] = [:]
    var edgeTags: [UInt64: String] = [:]
    /// Entity → layout id → fields.
    var layouts: [String: [UInt64: [LayoutField]]] = [:]

    init(manifest bytes: [UInt8]) {
        var position = 48
        func u32() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            defer { position += 4 }
            return Checksums.read32(bytes, at: position)
        }
        guard let segments = u32() else { return }
        for _ in 0..<segments {
            guard let id = u32(), position < bytes.count else { return }
            if bytes[position] == 1 { activeSegment = id } else { sealedSegments.insert(id) }
            position += 17
        }
        guard let blobFiles = u32() else { return }
        for _ in 0..<blobFiles {
            guard let id = u32(), position < bytes.count else { return }
            if bytes[position] == 1 { activeBlobFile = id }
            position += 1
        }
        metadataCountOffset = position
        guard let count = u32() else { return }
        for _ in 0..<count {
            let start = position
            guard position + 2 <= bytes.count else { return }
            let keyLength = Int(bytes[position]) | Int(bytes[position + 1]) << 8
            position += 2
            guard position + keyLength <= bytes.count else { return }
            let key = String(decoding: bytes[position..<position + keyLength], as: UTF8.self)
            position += keyLength
            guard let valueLength = u32(), position + Int(valueLength) <= bytes.count else { return }
            let value = Array(bytes[position..<position + Int(valueLength)])
            position += Int(valueLength)
            metadata.append(Metadata(key: key, value: value, start: start, end: position))
        }
        if let schema = json("strata.schema") as? [String: Any] {
            for (name, tag) in schema { if let tag = tag as? NSNumber { entityTags[tag.uint64Value] = name } }
        }
        if let edges = json("strata.edges") as? [String: Any] {
            for (name, tag) in edges { if let tag = tag as? NSNumber { edgeTags[tag.uint64Value] = name } }
        }
        if let table = json("strata.layouts") as? [String: Any], let entities = table["entities"] as? [String: Any] {
            for (name, entity) in entities {
                guard let entity = entity as? [String: Any], let list = entity["layouts"] as? [[String: Any]] else { continue }
                for layout in list {
                    guard let id = (layout["id"] as? NSNumber)?.uint64Value, let fields = layout["fields"] as? [[String: Any]] else { continue }
                    layouts[name, default: [:]][id] = fields.map {
                        LayoutField(name: $0["name"] as? String ?? "?", type: $0["type"] as? String ?? $0["kind"] as? String ?? "?")
                    }
                }
            }
        }
    }

    func json(_ key: String) -> Any? {
        guard let value = metadata.first(where: { $0.key == key })?.value else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(value))
    }

    /// "Employee 2:5", "edge Employee.projects 65534:3", "counter of Employee".
    func describe(key: UInt64) -> String {
        let tag = key >> 48, serial = key & 0xFFFF_FFFF_FFFF
        let owner = entityTags[tag] ?? edgeTags[tag].map { "edge \($0)" } ?? "tag \(tag)"
        return serial == 0 ? "counter of \(owner)" : "\(owner) \(tag):\(serial)"
    }

    /// The manifest with metadata `key`'s value replaced (nil: the entry removed),
    /// its CRC recomputed.
    func manifest(_ bytes: [UInt8], replacing key: String, with value: [UInt8]?) -> [UInt8] {
        guard let entry = metadata.first(where: { $0.key == key }) else { return bytes }
        var result = Array(bytes[..<entry.start])
        if let value {
            let keyBytes = Array(key.utf8)
            result += [UInt8(keyBytes.count & 0xFF), UInt8(keyBytes.count >> 8)] + keyBytes
            var length = [UInt8](repeating: 0, count: 4)
            Checksums.put32(UInt32(value.count), into: &length, at: 0)
            result += length + value
        } else {
            let count = Checksums.read32(result, at: metadataCountOffset)
            Checksums.put32(count - 1, into: &result, at: metadataCountOffset)
        }
        result += bytes[entry.end...]
        Checksums.repairTrailer(&result)
        return result
    }
}
