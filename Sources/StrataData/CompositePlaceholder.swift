import Foundation

/// The value a read of a non-optional composite attribute returns when the stored value
/// cannot be read (a null left by untyped code, JSON of another shape): accessors cannot
/// throw, so they return this and the context keeps the error for the next `save()`.
///
/// Tried in order: the property's declared default; a value decoded from "zero" input
/// (empty strings and containers, zero numbers, `false`, nil optionals), which every
/// struct of scalars, arrays and optionals accepts; the first case of a `CaseIterable`
/// enum. A type none of these makes (an enum that is not `CaseIterable`, with no default
/// value) is refused when its model's ``Schema`` is built, so a read never traps.
enum CompositePlaceholder {
    /// A placeholder for `type`, or nil when none of the ways above makes one.
    static func make<T: Decodable>(_ type: T.Type, declaredDefault: Value?) -> T? {
        if let declaredDefault, let value = try? CompositeCoding.decode(declaredDefault, as: T.self) { return value }
        if let value = try? T(from: ZeroDecoder()) { return value }
        if let cases = T.self as? any CaseIterable.Type, let first = firstCase(cases) as? T { return first }
        return nil
    }

    private static func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { type.allCases.first }
}

/// A decoder that answers every request with the zero of the asked type.
private struct ZeroDecoder: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ZeroKeyed<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { ZeroUnkeyed(codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { ZeroSingle(codingPath: codingPath) }
}

/// Zero of a scalar type, or nil for a type decoded through its own `init(from:)`.
private func zero<T>(_ type: T.Type) -> T? {
    switch type {
    case is String.Type: return "" as? T
    case is Bool.Type: return false as? T
    case is Double.Type: return 0.0 as? T
    case is Float.Type: return Float(0) as? T
    case is Int.Type: return 0 as? T
    case is Int8.Type: return Int8(0) as? T
    case is Int16.Type: return Int16(0) as? T
    case is Int32.Type: return Int32(0) as? T
    case is Int64.Type: return Int64(0) as? T
    case is UInt.Type: return UInt(0) as? T
    case is UInt8.Type: return UInt8(0) as? T
    case is UInt16.Type: return UInt16(0) as? T
    case is UInt32.Type: return UInt32(0) as? T
    case is UInt64.Type: return UInt64(0) as? T
    case is Decimal.Type: return Decimal(0) as? T
    case is UUID.Type: return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? T
    case is URL.Type: return URL(string: "about:blank") as? T
    default: return nil
    }
}

private func zeroDecode<T: Decodable>(_ type: T.Type, _ path: [any CodingKey]) throws -> T {
    if let value = zero(type) { return value }
    return try T(from: ZeroDecoder(codingPath: path))
}

private struct ZeroKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    var codingPath: [any CodingKey]
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    // Optionals decode as nil, which also ends recursive types.
    func decodeNil(forKey key: Key) throws -> Bool { true }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try zeroDecode(type, codingPath + [key]) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(ZeroKeyed<NestedKey>(codingPath: codingPath + [key]))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { ZeroUnkeyed(codingPath: codingPath + [key]) }
    func superDecoder() throws -> any Decoder { ZeroDecoder(codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ZeroDecoder(codingPath: codingPath + [key]) }
}

private struct ZeroUnkeyed: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey]
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    private func end() -> DecodingError {
        DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "empty"))
    }
    mutating func decodeNil() throws -> Bool { true }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> { throw end() }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end() }
    mutating func superDecoder() throws -> any Decoder { throw end() }
}

private struct ZeroSingle: SingleValueDecodingContainer {
    var codingPath: [any CodingKey]
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try zeroDecode(type, codingPath) }
}
