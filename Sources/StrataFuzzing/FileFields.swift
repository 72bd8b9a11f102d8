/// Where the fields of each kind of store file sit (FORMAT.md §3, §5, §6, §7): the
/// store target edits these, not random bytes, so that each edit is a plausible
/// damage — a count off by one, a length of u64.max, an id that another file has.
struct FileField {
    var offset: Int
    var width: Int
}

enum FileFields {
    static func fields(of path: String, _ bytes: [UInt8]) -> [FileField] {
        var fields: [FileField] = []
        var reader = FieldCursor(bytes: bytes, fields: [])
        if path.hasSuffix("MANIFEST") { reader.manifest() }
        else if path.hasSuffix(".hint") { reader.hint() }
        else if path.hasSuffix(".idx") { reader.indexFooter() }
        else if path.hasSuffix(".seg") { reader.segment() }
        else if path.hasSuffix(".blob") { reader.blobFile() }
        fields = reader.fields
        return fields
    }
}

/// Walks a file, noting each field it passes; stops quietly where the bytes end.
struct FieldCursor {
    let bytes: [UInt8]
    var fields: [FileField]
    var position = 0

    var remaining: Int { bytes.count - position }

    /// Notes a field of `width` bytes and returns its value (little-endian).
    @discardableResult
    mutating func field(_ width: Int) -> UInt64? {
        guard remaining >= width else { position = bytes.count; return nil }
        fields.append(FileField(offset: position, width: width))
        var value: UInt64 = 0
        for i in stride(from: width - 1, through: 0, by: -1) where i < 8 { value = value << 8 | UInt64(bytes[position + i]) }
        position += width
        return value
    }

    mutating func skip(_ count: Int) { position = min(bytes.count, position + max(0, count)) }

    mutating func fileHeader() {
        skip(8); field(4); field(4); skip(16 + 12); field(4)
    }

    mutating func manifest() {
        skip(8); field(4); field(4); skip(16); field(8); field(4); field(4)
        guard let segments = field(4) else { return }
        for _ in 0..<min(segments, 1000) { field(4); field(1); field(8); field(8) }
        guard let blobFiles = field(4) else { return }
        for _ in 0..<min(blobFiles, 1000) { field(4); field(1) }
        guard let metadata = field(4) else { return }
        for _ in 0..<min(metadata, 1000) {
            guard let keyLength = field(2) else { return }
            skip(Int(keyLength))
            guard let valueLength = field(4) else { return }
            skip(Int(min(valueLength, UInt64(remaining))))
        }
    }

    /// An index file's footer fields (FORMAT.md §7.1): the handles and counts a reader
    /// must check before it allocates anything.
    mutating func indexFooter() {
        guard bytes.count >= 160 else { return }
        position = bytes.count - 160
        skip(8); field(4); field(4); skip(16)
        for _ in 0..<15 { field(8) }
        field(4)
    }

    mutating func hint() {
        skip(8); field(4); field(4); skip(16); field(8); field(8); field(8)
        guard let count = field(8) else { return }
        for _ in 0..<min(count, 10_000) {
            field(1); field(8); field(8); field(4); field(4); field(4); field(4)
            guard let blobs = field(2), let terms = field(2) else { return }
            for _ in 0..<blobs { blobRef() }
            for _ in 0..<terms { term() }
        }
    }

    mutating func blobRef() { field(4); field(8); field(8); field(4) }

    mutating func term() {
        field(4)
        guard let length = field(2) else { return }
        skip(Int(length))
    }

    mutating func segment() {
        fileHeader()
        while remaining >= 12 {
            let start = position
            guard let length = field(4) else { return }
            skip(4)
            let type = field(1)
            let flags = field(1)
            skip(2)
            let end = min(bytes.count, start + 12 + Int(min(length, UInt64(bytes.count))))
            switch (type, flags) {
            case (1, 0): recordsBlock(end: end)
            case (1, _): field(4) // an LZ4 block's raw length
            case (2, _): field(8); field(4); field(4)
            case (3, _): field(8); field(8)
            default: break
            }
            position = end
        }
    }

    mutating func recordsBlock(end: Int) {
        guard let count = field(4) else { return }
        for _ in 0..<min(count, 10_000) where position < end {
            field(1); field(8); field(8)
            guard let valueLength = field(4), let blobs = field(2), let terms = field(2) else { return }
            skip(Int(min(valueLength, UInt64(remaining))))
            for _ in 0..<blobs where position < end { blobRef() }
            for _ in 0..<terms where position < end { term() }
        }
    }

    mutating func blobFile() {
        fileHeader()
        while remaining >= 32 {
            skip(4); field(4)
            guard let stored = field(8) else { return }
            field(8); field(4); skip(4)
            skip(Int(min(stored, UInt64(remaining))))
        }
    }
}
