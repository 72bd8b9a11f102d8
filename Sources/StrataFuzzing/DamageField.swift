/// One field of one store file, as the damage catalogue names and edits it: where it
/// is, how it is encoded, and which checksums cover it (recomputed after the edit, so
/// the damage reaches the decoder behind them).
struct DamageField: Sendable {
    enum Encoding {
        /// An unsigned little-endian integer of `width` bytes (the first 8 of a wider
        /// field, such as a store UUID).
        case little
        /// An object record's varint (FORMAT.md §11.1), rewritten in the same number
        /// of bytes (a value that needs fewer is padded with continuation bits), so that
        /// nothing after it moves.
        case varint
    }

    /// What the catalogue tries on the field.
    enum Mutations {
        /// +1, −1, 0, all ones, and the value of the same field of another entry.
        case numeric
        /// Set to 0 (a filter's bits).
        case cleared
    }

    var path: String
    /// Where the field is, readable: "segment 3 frame@1234 record[2] (2:5).sequence".
    var name: String
    /// The file kind and the field's pattern, the summary's row: "sealed segment record.sequence".
    var category: String
    var offset: Int
    var width: Int
    var encoding: Encoding = .little
    var mutations: Mutations = .numeric
    var repairs: [ChecksumRepair]

    /// The field's value as stored (nil when it does not decode).
    func value(in bytes: [UInt8]) -> UInt64? {
        guard offset >= 0, offset + width <= bytes.count else { return nil }
        switch encoding {
        case .little:
            var value: UInt64 = 0
            for i in stride(from: min(width, 8) - 1, through: 0, by: -1) { value = value << 8 | UInt64(bytes[offset + i]) }
            return value
        case .varint:
            var value: UInt64 = 0
            for i in 0..<width {
                let byte = bytes[offset + i]
                guard i < 10 else { return nil }
                value |= UInt64(byte & 0x7F) << UInt64(7 * i)
                if byte < 0x80 { return i == width - 1 ? value : nil }
            }
            return nil
        }
    }

    /// The largest value the field holds in its width.
    var maximum: UInt64 {
        switch encoding {
        case .little: width >= 8 ? .max : (1 << UInt64(8 * width)) - 1
        case .varint: 7 * width >= 64 ? .max : (1 << UInt64(7 * width)) - 1
        }
    }

    /// Writes `value` (at most `maximum`) in the field's bytes.
    func write(_ value: UInt64, into bytes: inout [UInt8]) {
        switch encoding {
        case .little:
            for i in 0..<min(width, 8) { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> UInt64(8 * i)) }
        case .varint:
            for i in 0..<width {
                let group = UInt8(truncatingIfNeeded: (value >> UInt64(7 * i)) & 0x7F)
                bytes[offset + i] = i == width - 1 ? group : group | 0x80
            }
        }
    }
}

/// A checksum to recompute after an edit.
enum ChecksumRepair: Sendable {
    /// A manifest's trailing CRC.
    case trailer
    /// A segment or blob file's 48-byte header.
    case fileHeader
    /// The frame whose header starts at this offset.
    case frame(Int)
    /// The blob entry whose header starts at this offset.
    case blobEntry(Int)
    /// An index file's block: its offset and length, CRC included.
    case indexBlock(start: Int, length: Int)
    /// An index file's footer.
    case indexFooter

    func apply(to bytes: inout [UInt8]) {
        switch self {
        case .trailer: Checksums.repairTrailer(&bytes)
        case .fileHeader: Checksums.repairFileHeader(&bytes)
        case .frame(let start): Checksums.repairFrame(&bytes, at: start)
        case .blobEntry(let start): Checksums.repairBlobEntry(&bytes, at: start)
        case .indexBlock(let start, let length): Checksums.repairIndexBlock(&bytes, start: start, length: length)
        case .indexFooter: Checksums.repairIndexFooter(&bytes)
        }
    }
}

/// Walks one file, noting each field it passes under the current label (where it is),
/// group (the file kind) and repairs; stops quietly where the bytes end.
struct DamageCursor {
    let path: String
    let bytes: [UInt8]
    var position = 0
    var fields: [DamageField] = []
    /// The name prefix of the fields noted next: "segment 3 frame@1234".
    var label = ""
    /// The category prefix: "sealed segment", "idx", "MANIFEST".
    var group = ""
    var repairs: [ChecksumRepair] = []

    init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - position }

    /// Notes a little-endian field of `width` bytes named `name` (its category the
    /// group and `pattern`, `name` itself by default) and returns its value.
    @discardableResult
    mutating func field(_ name: String, _ width: Int, pattern: String? = nil, mutations: DamageField.Mutations = .numeric) -> UInt64? {
        guard width > 0, remaining >= width else { position = bytes.count; return nil }
        let field = DamageField(path: path, name: label.isEmpty ? name : "\(label) \(name)", category: "\(group) \(pattern ?? name)",
                                offset: position, width: width, mutations: mutations, repairs: repairs)
        fields.append(field)
        position += width
        return field.value(in: bytes)
    }

    /// Notes a varint field (FORMAT.md §11.1) and returns its value.
    @discardableResult
    mutating func varint(_ name: String, pattern: String? = nil) -> UInt64? {
        var width = 0
        while position + width < bytes.count, width < 10 {
            width += 1
            if bytes[position + width - 1] < 0x80 { break }
        }
        guard width > 0, bytes[position + width - 1] < 0x80 else { position = bytes.count; return nil }
        let field = DamageField(path: path, name: label.isEmpty ? name : "\(label) \(name)", category: "\(group) \(pattern ?? name)",
                                offset: position, width: width, encoding: .varint, repairs: repairs)
        fields.append(field)
        position += width
        return field.value(in: bytes)
    }

    /// Reads a little-endian value without noting a field.
    func peek(_ width: Int, at offset: Int? = nil) -> UInt64? {
        let at = offset ?? position
        guard at >= 0, width <= 8, at + width <= bytes.count else { return nil }
        var value: UInt64 = 0
        for i in stride(from: width - 1, through: 0, by: -1) { value = value << 8 | UInt64(bytes[at + i]) }
        return value
    }

    mutating func skip(_ count: Int) { position = min(bytes.count, position + max(0, count)) }
}
