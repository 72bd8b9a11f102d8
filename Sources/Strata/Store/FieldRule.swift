import StrataLog

/// What one field of a layout may hold in a record (docs/FORMAT.md §11.1), as one byte
/// so that the compiled paths can test a field where it lies: null always; a value of
/// the attribute type's kind (or a null value); a blob only for an external binary; a
/// reference only for a to-one; a list only for a to-many kept as one.
///
/// Every reader of object records holds a record to its layout's rules: a field count
/// that differs, a value of another kind, bytes after the last field are damage
/// (`.corrupt`), never read as null, as another type, or as a row left out.
struct FieldRule: Sendable, Equatable {
    let code: UInt8

    private static let externalFlag: UInt8 = 0x80
    private static let toOneCode: UInt8 = 0x40
    private static let toManyListCode: UInt8 = 0x20

    static let toOne = FieldRule(code: toOneCode)
    static let toManyList = FieldRule(code: toManyListCode)

    static func attribute(_ type: AttributeType, external: Bool) -> FieldRule {
        FieldRule(code: valueKind(of: type).rawValue | (external ? externalFlag : 0))
    }

    init(code: UInt8) { self.code = code }

    init(_ kind: StoreSchema.Field.Kind) {
        switch kind {
        case .attribute(let type, let external): self = .attribute(type, external: external)
        case .toOne: self = .toOne
        case .toManyList: self = .toManyList
        }
    }

    /// The value kind an attribute of `type` is written with: every integer width one
    /// kind, Float and Double one, a transformable's bytes binary.
    static func valueKind(of type: AttributeType) -> ObjectCodec.ValueKind {
        switch type {
        case .bool: .bool
        case .int16, .int32, .int64: .int
        case .float, .double: .double
        case .decimal: .decimal
        case .string: .string
        case .date: .date
        case .binary, .transformable: .binary
        case .uuid: .uuid
        case .url: .url
        case .composite: .composite
        }
    }

    /// Whether a field of tag `tag` (and, for a value, kind byte `kind`) may stand here.
    @inline(__always)
    func admits(tag: UInt8, kind: UInt8) -> Bool {
        switch tag {
        case 0: return true
        case 1: return code & 0x60 == 0 && (kind == 0 || kind == code & 0x0F)
        case 2: return code & Self.externalFlag != 0
        case 3: return code == Self.toOneCode
        case 4: return code == Self.toManyListCode
        default: return false
        }
    }

    /// Patterns without bindings: a bound payload (a string, a list) would be retained
    /// and released for every field of every record read.
    @inline(__always)
    func admits(_ field: FieldValue) -> Bool {
        switch field {
        case .null: true
        case .value(.null): code & 0x60 == 0
        case .value(.bool): admits(tag: 1, kind: ObjectCodec.ValueKind.bool.rawValue)
        case .value(.int): admits(tag: 1, kind: ObjectCodec.ValueKind.int.rawValue)
        case .value(.double): admits(tag: 1, kind: ObjectCodec.ValueKind.double.rawValue)
        case .value(.decimal): admits(tag: 1, kind: ObjectCodec.ValueKind.decimal.rawValue)
        case .value(.string): admits(tag: 1, kind: ObjectCodec.ValueKind.string.rawValue)
        case .value(.date): admits(tag: 1, kind: ObjectCodec.ValueKind.date.rawValue)
        case .value(.binary): admits(tag: 1, kind: ObjectCodec.ValueKind.binary.rawValue)
        case .value(.uuid): admits(tag: 1, kind: ObjectCodec.ValueKind.uuid.rawValue)
        case .value(.url): admits(tag: 1, kind: ObjectCodec.ValueKind.url.rawValue)
        case .value(.composite): admits(tag: 1, kind: ObjectCodec.ValueKind.composite.rawValue)
        case .blob: admits(tag: 2, kind: 0)
        case .reference: admits(tag: 3, kind: 0)
        case .references: admits(tag: 4, kind: 0)
        }
    }

    static func kindByte(of value: Value) -> UInt8 {
        switch value {
        case .null: 0
        case .bool: ObjectCodec.ValueKind.bool.rawValue
        case .int: ObjectCodec.ValueKind.int.rawValue
        case .double: ObjectCodec.ValueKind.double.rawValue
        case .decimal: ObjectCodec.ValueKind.decimal.rawValue
        case .string: ObjectCodec.ValueKind.string.rawValue
        case .date: ObjectCodec.ValueKind.date.rawValue
        case .binary: ObjectCodec.ValueKind.binary.rawValue
        case .uuid: ObjectCodec.ValueKind.uuid.rawValue
        case .url: ObjectCodec.ValueKind.url.rawValue
        case .composite: ObjectCodec.ValueKind.composite.rawValue
        }
    }

    var description: String {
        switch code {
        case Self.toOneCode: "a to-one reference"
        case Self.toManyListCode: "a to-many list"
        default: (code & Self.externalFlag != 0 ? "an external " : "a ") + "value of kind \(code & 0x0F)"
        }
    }

    /// Holds a decoded record's fields to `rules`, its layout's.
    static func check(_ fields: [FieldValue], against rules: [FieldRule], key: RecordKey, layout: UInt32, entity: String) throws {
        guard fields.count == rules.count else {
            throw StrataError(.corrupt, "object record \(key) of \(entity) has \(fields.count) fields; its layout \(layout) has \(rules.count)",
                              context: ["entity": entity, "key": "\(key.rawValue)"])
        }
        let bad: Int? = fields.withUnsafeBufferPointer { fields in
            rules.withUnsafeBufferPointer { rules in
                for number in 0..<fields.count where !rules[number].admits(fields[number]) { return number }
                return nil
            }
        }
        if let bad { throw mismatch(key: key, field: bad, rule: rules[bad], layout: layout, entity: entity) }
    }

    static func mismatch(key: RecordKey, field: Int, rule: FieldRule, layout: UInt32, entity: String) -> StrataError {
        StrataError(.corrupt, "object record \(key) of \(entity): field \(field) of layout \(layout) holds something other than \(rule.description)",
                    context: ["entity": entity, "key": "\(key.rawValue)", "field": "\(field)"])
    }

    static func countMismatch(key: RecordKey, count: Int, expected: Int) -> StrataError {
        StrataError(.corrupt, "object record \(key) has \(count) fields; its layout has \(expected)", context: ["key": "\(key.rawValue)"])
    }
}
