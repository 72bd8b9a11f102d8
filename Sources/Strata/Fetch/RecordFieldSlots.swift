import Foundation
import StrataLog

/// The fields a compiled fetch reads, decoded straight from a record's encoded value
/// (docs/FORMAT.md §11.1) into a few reusable slots: the fields before the last one
/// wanted are skipped without decoding, the ones after it are not looked at, and no
/// `StoredObject` or field array is made for a record that does not match.
struct RecordFieldSlots {
    /// Field number → slot, or -1 for a field no slot wants.
    let slotOfField: [Int]
    /// What each field of the current layout may hold: every field of a record is
    /// held to it, wanted or not.
    let rules: [FieldRule]
    /// The slots' values for the record loaded last.
    var values: [FieldValue]

    /// Slots for the given field numbers, in that order (duplicates share a slot), of
    /// records of the layout whose rules are `rules`.
    init(fields: [Int], rules: [FieldRule]) {
        var slotOfField = [Int](repeating: -1, count: (fields.max() ?? -1) + 1)
        var count = 0
        for number in fields where slotOfField[number] < 0 {
            slotOfField[number] = count
            count += 1
        }
        self.slotOfField = slotOfField
        self.rules = rules
        values = Array(repeating: .null, count: count)
    }

    /// The slot of a field number.
    func slot(of number: Int) -> Int { slotOfField[number] }

    /// Decodes the wanted fields of `view`'s value into the slots. Returns false when
    /// a wanted field is an external binary (its reference needs the record's blob
    /// list): such a record is judged as an object.
    ///
    /// Every field is read, wanted or not: the count must be the layout's, each field
    /// what its rule admits, and nothing may follow the last one. A record judged on a
    /// few fields must be one that reads whole — a damaged one is `.corrupt` here,
    /// never a row left out or a field read as null.
    ///
    /// - Throws: `.corrupt` for a record that does not hold to its layout or a value
    ///   that does not decode.
    ///
    /// A record of another layout than `layoutID` (an older layout, read forward by
    /// field identity) also returns false: its field numbers are not the current ones,
    /// so it is judged decoded. A version-1 record carries no layout id and is of the
    /// entity's `firstLayoutID`. (The two ids, not the whole `EntityLayout`: passing
    /// that struct retained each of its arrays and dictionaries once per record.)
    mutating func load(_ view: RecordView, layoutID: UInt32, firstLayoutID: UInt32) throws -> Bool {
        for i in values.indices { values[i] = .null }
        guard !slotOfField.isEmpty else { return true }
        var r = RawFieldReader(bytes: view.value, key: view.key)
        let version = try r.u8()
        guard ObjectCodec.readableVersions.contains(version) else {
            throw StrataError(.corrupt, "object record \(view.key) has codec version \(version), this release reads \(ObjectCodec.readableVersions)")
        }
        let recordLayout = version >= 2 ? try r.varint() : UInt64(firstLayoutID)
        guard recordLayout == UInt64(layoutID) else { return false }
        let count = try r.length()
        guard count == rules.count else { throw FieldRule.countMismatch(key: view.key, count: count, expected: rules.count) }
        var external = false
        for number in 0..<count {
            let slot = number < slotOfField.count ? slotOfField[number] : -1
            let tagByte = try r.u8()
            guard rules[number].admits(tag: tagByte, kind: tagByte == 1 ? r.peek() : 0) else {
                throw StrataError(.corrupt, "object record \(view.key): field \(number) holds something other than \(rules[number].description) (tag \(tagByte))",
                                  context: ["key": "\(view.key.rawValue)", "field": "\(number)"])
            }
            switch tagByte {
            case 0:
                continue
            case 1:
                if slot >= 0 { values[slot] = .value(try r.value()) } else { try r.skipValue() }
            case 2:
                if slot >= 0 { external = true }
                _ = try r.varint()
                _ = try r.varint()
            case 3:
                let key = RecordKey(try r.u64())
                if slot >= 0 { values[slot] = .reference(key) }
            default:
                let n = try r.length()
                guard n <= r.remaining / 8 else { throw StrataError(.corrupt, "object record \(view.key) announces \(n) references") }
                if slot >= 0 {
                    var keys: [RecordKey] = []
                    for _ in 0..<n { keys.append(RecordKey(try r.u64())) }
                    values[slot] = .references(keys)
                } else {
                    try r.skip(n * 8)
                }
            }
        }
        guard r.remaining == 0 else {
            throw StrataError(.corrupt, "object record \(view.key) has \(r.remaining) bytes after its last field", context: ["key": "\(view.key.rawValue)"])
        }
        return !external
    }
}

/// `FieldReader` over bytes in place: every read checks bounds and throws `.corrupt`.
struct RawFieldReader {
    let bytes: UnsafeRawBufferPointer
    let key: RecordKey
    var position = 0

    var remaining: Int { bytes.count - position }

    private func ended() -> StrataError { StrataError(.corrupt, "object record \(key) ends early") }

    /// The next byte without passing it; 0 at the end (the read that follows throws).
    func peek() -> UInt8 { position < bytes.count ? bytes[position] : 0 }

    mutating func u8() throws -> UInt8 {
        guard position < bytes.count else { throw ended() }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u64() throws -> UInt64 {
        guard position + 8 <= bytes.count else { throw ended() }
        defer { position += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// One varint; a one-byte one (most lengths, counts and small integers) without a
    /// call: records' fields are read a few varints each.
    @inline(__always)
    mutating func varint() throws -> UInt64 {
        if position < bytes.count {
            let byte = bytes[position]
            if byte < 0x80 {
                position += 1
                return UInt64(byte)
            }
        }
        return try longVarint()
    }

    private mutating func longVarint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            guard shift < 64 else { throw StrataError(.corrupt, "varint too long in object record \(key)") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    mutating func length() throws -> Int {
        let value = try varint()
        guard value <= UInt64(remaining) else {
            throw StrataError(.corrupt, "object record \(key) announces \(value) bytes or items, \(remaining) bytes remain")
        }
        return Int(value)
    }

    mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw ended() }
        position += count
    }

    mutating func slice(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw ended() }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }

    /// Text that is not UTF-8 is damage: read with replacement characters it would
    /// answer a string the store never held.
    mutating func string() throws -> String {
        let bytes = try slice(try length())
        guard Self.isUTF8(bytes) else {
            throw StrataError(.corrupt, "object record \(key) holds text that is not UTF-8", context: ["key": "\(key.rawValue)"])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Passes over one value without decoding it.
    mutating func skipValue() throws {
        let kindByte = try u8()
        if kindByte == 0 { return }
        guard let kind = ObjectCodec.ValueKind(rawValue: kindByte) else { throw StrataError(.corrupt, "unknown value kind \(kindByte) in object record \(key)") }
        switch kind {
        case .bool: try skip(1)
        case .int: _ = try varint()
        case .double, .date: try skip(8)
        case .uuid: try skip(16)
        // Text passed over is not validated: its UTF-8 is checked where it is read.
        case .decimal, .string, .url, .binary, .composite: try skip(try length())
        }
    }

    /// Whether `bytes` are UTF-8: ASCII (nearly every text a record holds) by a scan
    /// of its bytes, anything else by the standard library's validation.
    @inline(__always)
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Eight bytes at a time: a high bit anywhere sends the text to the full check.
        var i = 0
        let count = bytes.count
        while i + 8 <= count {
            if bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return String(validating: bytes, as: UTF8.self) != nil }
            i += 8
        }
        while i < count {
            if bytes[i] >= 0x80 { return String(validating: bytes, as: UTF8.self) != nil }
            i += 1
        }
        return true
    }

    /// One value, as `ObjectCodec.decodeValue` decodes it.
    mutating func value() throws -> Value {
        let kindByte = try u8()
        if kindByte == 0 { return .null }
        guard let kind = ObjectCodec.ValueKind(rawValue: kindByte) else { throw StrataError(.corrupt, "unknown value kind \(kindByte) in object record \(key)") }
        switch kind {
        case .bool: return .bool(try u8() != 0)
        case .int:
            let z = try varint()
            return .int(Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))))
        case .double: return .double(Double(bitPattern: try u64()))
        case .decimal:
            let text = try string()
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw StrataError(.corrupt, "decimal '\(text)' does not parse") }
            return .decimal(decimal)
        case .string: return .string(try string())
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try u64())))
        case .binary: return .binary(Data(try slice(try length())))
        case .uuid:
            let b = try slice(16)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .url:
            let text = try string()
            guard let url = URL(string: text) else { throw StrataError(.corrupt, "URL '\(text)' does not parse") }
            return .url(url)
        case .composite: return .composite(Data(try slice(try length())))
        }
    }
}
