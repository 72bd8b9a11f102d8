import StrataLog

/// One field of a stored object as the record holds it.
enum FieldValue: Sendable, Equatable {
    case null
    /// An attribute value held in the record.
    case value(Value)
    /// An external-storage binary in the blob area: only its reference is in the record.
    case blob(BlobRef, rawLength: UInt64)
    /// A to-one relationship.
    case reference(RecordKey)
    /// A to-many kept as a list.
    case references([RecordKey])
}

/// A decoded record: the version it came from and its fields in layout order.
struct StoredObject: Sendable {
    var key: RecordKey
    var sequence: UInt64
    var fields: [FieldValue]
    /// The layout the fields are in; nil for a version-1 record (its entity's first).
    var layoutID: UInt32? = nil
}

extension FieldValue {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension Array where Element == FieldValue {
    /// `count` nulls. `Array(repeating: .null, count:)` copies the value into each slot
    /// through the enum's outlined copy, once per batch-inserted object; nulls hold
    /// nothing to copy.
    static func nulls(_ count: Int) -> [FieldValue] {
        [FieldValue](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: .null)
            initialized = count
        }
    }
}
