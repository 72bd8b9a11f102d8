import Foundation
import StrataLog

/// Encodes an object's fields into a record value (docs/FORMAT.md §11.1):
///
///     version u8 (2) · layout id varint · field count varint · fields…
///     field = tag u8 (0 null, 1 value, 2 blob, 3 reference, 4 references) · payload
///     value = kind u8 (1 bool … 10 composite) · bytes
///
/// Values carry their kind, so a record can be read (exported, migrated) without the
/// model that wrote it. External binaries are an index into the record's blob list.
enum ObjectCodec {
    /// The version written: 2 carries the layout id (§11.4). Version 1 (no layout id,
    /// the entity's first layout) is still read.
    static let version: UInt8 = 2
    static let readableVersions: ClosedRange<UInt8> = 1...2

    // Written to disk; never renumber.
    enum FieldTag: UInt8 { case null = 0, value = 1, blob = 2, reference = 3, references = 4 }
    enum ValueKind: UInt8 { case bool = 1, int = 2, double = 3, decimal = 4, string = 5, date = 6, binary = 7, uuid = 8, url = 9, composite = 10 }

    /// Encodes `fields` and computes the record's index terms. An indexed or unique
    /// attribute stored in the blob area gets the term its bytes would have inline,
    /// read through `blobBytes` (only for such attributes), so that equal values
    /// share a term wherever they are stored.
    static func encode(_ fields: [FieldValue], layout: StoreSchema.EntityLayout,
                       blobBytes: (BlobRef) throws -> [UInt8]) throws -> (value: [UInt8], blobs: [BlobRef], terms: [IndexTerm]) {
        var w = FieldWriter()
        // A typical record in one allocation, rather than grown by doubling from empty
        // (16 bytes a field was short of a name and an email: every employee's record
        // was copied once into a larger buffer).
        w.bytes.reserveCapacity(16 + fields.count * 32)
        var blobs: [BlobRef] = []
        var terms: [IndexTerm] = []
        w.u8(version)
        w.varint(UInt64(layout.layoutID))
        w.varint(UInt64(fields.count))
        // Fields and their layout are read in place: taken out of the array for its
        // bytes and again for its term, every string value was retained and released
        // twice per field.
        try fields.withUnsafeBufferPointer { fields in
            try layout.fields.withUnsafeBufferPointer { layoutFields in
                for number in fields.indices {
                    let termIndex = number < layoutFields.count ? layoutFields[number].termIndex : nil
                    switch fields[number] {
                    case .null:
                        w.u8(FieldTag.null.rawValue)
                    case .value(let value):
                        w.u8(FieldTag.value.rawValue)
                        encode(value, into: &w)
                    case .blob(let ref, let rawLength):
                        w.u8(FieldTag.blob.rawValue)
                        w.varint(UInt64(blobs.count))
                        w.varint(rawLength)
                        blobs.append(ref)
                    case .reference(let key):
                        w.u8(FieldTag.reference.rawValue)
                        w.u64(key.rawValue)
                    case .references(let keys):
                        w.u8(FieldTag.references.rawValue)
                        w.varint(UInt64(keys.count))
                        for key in keys { w.u64(key.rawValue) }
                    }
                    // Only an indexed field is taken out of the array again, for its term.
                    if let termIndex, let term = try termValue(fields[number], blobBytes: blobBytes) {
                        terms.append(IndexTerm(index: termIndex, value: term))
                    }
                }
            }
        }
        for (index, numbers) in layout.compoundTerms {
            guard let term = try compoundTerm(fields, numbers: numbers, blobBytes: blobBytes) else { continue }
            terms.append(IndexTerm(index: index, value: term))
        }
        return (w.bytes, blobs, terms)
    }

    /// The term of a compound uniqueness constraint over the fields `numbers` names;
    /// nil when one of them is null or missing (values are null-distinct).
    static func compoundTerm(_ fields: [FieldValue], numbers: [Int], blobBytes: (BlobRef) throws -> [UInt8]) throws -> [UInt8]? {
        var values: [Value] = []
        for number in numbers {
            guard number < fields.count else { return nil }
            if case .value(let value) = fields[number] {
                values.append(value)
            } else if case .blob(let ref, _) = fields[number] {
                values.append(.binary(Data(try blobBytes(ref))))
            } else {
                return nil
            }
        }
        return UniqueConstraint.term(values, compound: true)
    }

    static func decode(_ record: Record) throws -> StoredObject {
        try record.value.withUnsafeBytes { bytes in
            try record.blobs.withUnsafeBufferPointer { blobs in
                try decode(RecordView(key: record.key, sequence: record.sequence, value: bytes, blobs: blobs))
            }
        }
    }

    /// An object record read in place (`RecordStore.withRecord`), decoded from the
    /// block's bytes without the record's value, terms and blob list copied out first;
    /// a `Record` already copied out is viewed the same way. Blob references are
    /// decoded only when a field names one. Every length and count is checked against
    /// the bytes left before it is used (`RawFieldReader`).
    ///
    /// - Parameter capacity: room to reserve for fields beyond the record's own count
    ///   (its layout's, not the record's word): a record of an older layout is read
    ///   forward by appending to the same array.
    static func decode(_ view: RecordView, capacity: Int = 0) throws -> StoredObject {
        var r = RawFieldReader(bytes: view.value, key: view.key)
        let version = try r.u8()
        guard readableVersions.contains(version) else {
            throw StrataError(.corrupt, "object record \(view.key) has codec version \(version), this release reads \(readableVersions)")
        }
        var layoutID: UInt32?
        if version >= 2 {
            let id = try r.varint()
            guard id > 0, let small = UInt32(exactly: id) else { throw StrataError(.corrupt, "object record \(view.key) names layout \(id)") }
            layoutID = small
        }
        let count = try r.length()
        var fields: [FieldValue] = []
        fields.reserveCapacity(max(count, capacity))
        for _ in 0..<count {
            let tagByte = try r.u8()
            guard let tag = FieldTag(rawValue: tagByte) else { throw StrataError(.corrupt, "object record \(view.key) has unknown field tag \(tagByte)") }
            switch tag {
            case .null: fields.append(.null)
            case .value: fields.append(.value(try r.value()))
            case .blob:
                let index = try r.varint()
                let rawLength = try r.varint()
                guard index < UInt64(view.blobCount) else { throw StrataError(.corrupt, "object record \(view.key) names blob \(index) of \(view.blobCount)") }
                fields.append(.blob(try view.blob(at: Int(index)), rawLength: rawLength))
            case .reference: fields.append(.reference(RecordKey(try r.u64())))
            case .references:
                let n = try r.length()
                guard n <= view.value.count / 8 else { throw StrataError(.corrupt, "object record \(view.key) announces \(n) references") }
                var keys: [RecordKey] = []
                keys.reserveCapacity(n)
                for _ in 0..<n { keys.append(RecordKey(try r.u64())) }
                fields.append(.references(keys))
            }
        }
        guard r.remaining == 0 else {
            throw StrataError(.corrupt, "object record \(view.key) has \(r.remaining) bytes after its last field", context: ["key": "\(view.key.rawValue)"])
        }
        return StoredObject(key: view.key, sequence: view.sequence, fields: fields, layoutID: layoutID)
    }

    static func encode(_ value: Value, into w: inout FieldWriter) {
        switch value {
        case .null:
            w.u8(0)
        case .bool(let b):
            w.u8(ValueKind.bool.rawValue)
            w.u8(b ? 1 : 0)
        case .int(let i):
            w.u8(ValueKind.int.rawValue)
            w.varint(UInt64(bitPattern: (i << 1) ^ (i >> 63)))
        case .double(let d):
            w.u8(ValueKind.double.rawValue)
            w.u64(d.bitPattern)
        case .decimal(let d):
            w.u8(ValueKind.decimal.rawValue)
            w.string(NSDecimalNumber(decimal: d).stringValue)
        case .string(let s):
            w.u8(ValueKind.string.rawValue)
            w.string(s)
        case .date(let d):
            w.u8(ValueKind.date.rawValue)
            w.u64(d.timeIntervalSinceReferenceDate.bitPattern)
        case .binary(let data):
            w.u8(ValueKind.binary.rawValue)
            w.varint(UInt64(data.count))
            w.bytes.append(contentsOf: data)
        case .uuid(let u):
            w.u8(ValueKind.uuid.rawValue)
            withUnsafeBytes(of: u.uuid) { w.bytes.append(contentsOf: $0) }
        case .url(let url):
            w.u8(ValueKind.url.rawValue)
            w.string(url.absoluteString)
        case .composite(let data):
            w.u8(ValueKind.composite.rawValue)
            w.varint(UInt64(data.count))
            w.bytes.append(contentsOf: data)
        }
    }

    static func decodeValue(_ r: inout FieldReader) throws -> Value {
        let kindByte = try r.u8()
        if kindByte == 0 { return .null }
        guard let kind = ValueKind(rawValue: kindByte) else { throw StrataError(.corrupt, "unknown value kind \(kindByte) in an object record") }
        switch kind {
        case .bool: return .bool(try r.u8() != 0)
        case .int:
            let z = try r.varint()
            return .int(Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))))
        case .double: return .double(Double(bitPattern: try r.u64()))
        case .decimal:
            let text = try r.string()
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw StrataError(.corrupt, "decimal '\(text)' does not parse") }
            return .decimal(decimal)
        case .string: return .string(try r.string())
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try r.u64())))
        case .binary: return .binary(Data(try r.bytes(try r.length())))
        case .uuid:
            let b = try r.bytes(16)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .url:
            let text = try r.string()
            guard let url = URL(string: text) else { throw StrataError(.corrupt, "URL '\(text)' does not parse") }
            return .url(url)
        case .composite: return .composite(Data(try r.bytes(try r.length())))
        }
    }

    /// The term a field contributes to its index: to-one keys big-endian; attribute
    /// values in an encoding whose byte order is the values' order.
    /// The term of a field wherever its value is stored: an external binary's is the
    /// one its bytes (read through `blobBytes`) would have inline.
    static func termValue(_ field: FieldValue, blobBytes: (BlobRef) throws -> [UInt8]) throws -> [UInt8]? {
        if case .blob(let ref, _) = field { return orderedBytes(.binary(Data(try blobBytes(ref)))) }
        return termValue(field)
    }

    static func termValue(_ field: FieldValue) -> [UInt8]? {
        switch field {
        case .reference(let key): return bigEndian(key.rawValue)
        case .value(let value): return orderedBytes(value)
        default: return nil
        }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// Order-preserving bytes of a value (nil for null).
    ///
    /// A term is a candidate, never the answer: long values are cut at 1,024 bytes and
    /// decimals become doubles, so different values may share a term, and whoever looks
    /// one up confirms on the decoded values (docs/MODEL.md, "Exact uniqueness and
    /// index lookups"). Equal values must share a term, so strings are in canonical
    /// composition (NFC): Swift's `==` and `<` on `String` compare canonical
    /// equivalents equal and order by NFC scalars, which NFC's UTF-8 bytes keep.
    static func orderedBytes(_ value: Value) -> [UInt8]? {
        switch value {
        case .null: return nil
        case .bool(let b): return [b ? 1 : 0]
        case .int(let i): return bigEndian(UInt64(bitPattern: i) ^ (1 << 63))
        case .double(let d): return orderedDouble(d)
        case .decimal(let d): return orderedDouble(NSDecimalNumber(decimal: d).doubleValue)
        case .date(let d): return orderedDouble(d.timeIntervalSinceReferenceDate)
        case .string(let s): return stringTerm(s)
        case .uuid(let u): return withUnsafeBytes(of: u.uuid) { Array($0) }
        case .url(let url): return Array(url.absoluteString.utf8.prefix(1024))
        case .binary(let data): return Array(data.prefix(1024))
        case .composite(let data): return Array(data.prefix(1024))
        }
    }

    /// A string's term: its canonical composition's UTF-8, cut at 1,024 bytes. An ASCII
    /// string held contiguously (most are) is checked and copied from its storage in
    /// place: through the generic `UTF8View` iteration, the check and the copy cost a
    /// call per byte.
    static func stringTerm(_ s: String) -> [UInt8] {
        var s = s
        let ascii = s.withUTF8 { bytes -> [UInt8]? in
            var high: UInt8 = 0
            for byte in bytes { high |= byte }
            return high < 0x80 ? Array(UnsafeBufferPointer(rebasing: bytes.prefix(1024))) : nil
        }
        return ascii ?? Array(canonicalUTF8(s).prefix(1024))
    }

    /// The UTF-8 of a string's canonical composition; ASCII (most strings) as it is.
    static func canonicalUTF8(_ s: String) -> String.UTF8View {
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return s.utf8 }
        return s.precomposedStringWithCanonicalMapping.utf8
    }

    static func orderedDouble(_ d: Double) -> [UInt8] {
        let bits = d.bitPattern
        return bigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
    }
}

/// Little-endian and varint writer for object records.
struct FieldWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
    mutating func string(_ s: String) {
        // Straight from the string's UTF-8 view: no array per string.
        varint(UInt64(s.utf8.count))
        // A copy from contiguous UTF-8, not the view's element-by-element append.
        // `withUTF8` gives it for small strings too (held in the String's own bits),
        // for which the view has no contiguous storage: most names and short values.
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }
}

/// The reader side: every read checks bounds and throws `.corrupt` rather than trap.
struct FieldReader {
    let bytes: [UInt8]
    var position = 0

    mutating func u8() throws -> UInt8 {
        guard position < bytes.count else { throw StrataError(.corrupt, "object record ends early") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u64() throws -> UInt64 {
        guard position + 8 <= bytes.count else { throw StrataError(.corrupt, "object record ends early") }
        let v = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt64.self) }
        position += 8
        return UInt64(littleEndian: v)
    }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            guard shift < 64 else { throw StrataError(.corrupt, "varint too long in an object record") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A length or count written as a varint: at most the bytes left, so that a
    /// hostile record can neither trap the conversion to `Int` nor make the reader
    /// allocate more than the record holds.
    mutating func length() throws -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count - position) else {
            throw StrataError(.corrupt, "object record announces \(value) bytes or items, \(bytes.count - position) bytes remain")
        }
        return Int(value)
    }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= bytes.count - position else { throw StrataError(.corrupt, "object record ends early") }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func string() throws -> String {
        guard let text = String(validating: try bytes(try length()), as: UTF8.self) else {
            throw StrataError(.corrupt, "an object record holds text that is not UTF-8")
        }
        return text
    }
}
