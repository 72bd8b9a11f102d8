/// The integer widths: each is stored as the narrowest attribute type that holds every
/// value of it (`Int8` and `UInt8` as int16, `UInt16` as int32, `UInt32` as int64).
/// `UInt` and `UInt64` are not attributes: half their range does not fit a signed
/// 64-bit store value.
public protocol PersistentInteger: PersistentAttribute, FixedWidthInteger {}

extension PersistentInteger {
    public init?(persistentValue: Value) {
        guard case .int(let value) = persistentValue, let exact = Self(exactly: value) else { return nil }
        self = exact
    }
    public var persistentValue: Value { .int(Int64(self)) }
    public static var placeholder: Self { 0 }
}

extension Int: PersistentInteger { public static var attributeType: AttributeType { .int64 } }
extension Int64: PersistentInteger { public static var attributeType: AttributeType { .int64 } }
extension Int32: PersistentInteger { public static var attributeType: AttributeType { .int32 } }
extension Int16: PersistentInteger { public static var attributeType: AttributeType { .int16 } }
extension Int8: PersistentInteger { public static var attributeType: AttributeType { .int16 } }
extension UInt32: PersistentInteger { public static var attributeType: AttributeType { .int64 } }
extension UInt16: PersistentInteger { public static var attributeType: AttributeType { .int32 } }
extension UInt8: PersistentInteger { public static var attributeType: AttributeType { .int16 } }
