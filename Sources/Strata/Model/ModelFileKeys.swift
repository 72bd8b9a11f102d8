/// Coding keys by string, so that a model file's keys can be checked against the
/// known ones: a misspelt key ("optinal") must be an error, not a silently ignored
/// option that changes what the model means.
struct ModelFileKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int? = nil

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }

    /// Throws when the container holds a key outside `known`.
    static func rejectUnknown(
        in container: KeyedDecodingContainer<ModelFileKey>, known: Set<String>
    ) throws {
        for key in container.allKeys where !known.contains(key.stringValue) {
            let expected = known.sorted().joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "unknown key '\(key.stringValue)' (expected one of: \(expected))")
        }
    }
}

extension KeyedDecodingContainer where K == ModelFileKey {
    /// The value for `key`, or `fallback` when the key is absent or null.
    func decode<T: Decodable>(_ key: String, default fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: ModelFileKey(key)) ?? fallback
    }

    /// The value for a required `key`.
    func decode<T: Decodable>(_ key: String) throws -> T {
        try decode(T.self, forKey: ModelFileKey(key))
    }

    /// The value for `key`, or `nil` when it is absent or null.
    func decodeIfPresent<T: Decodable>(_ key: String) throws -> T? {
        try decodeIfPresent(T.self, forKey: ModelFileKey(key))
    }
}

extension KeyedEncodingContainer where K == ModelFileKey {
    /// Writes `value` unless it equals the documented default, to keep files short.
    mutating func encode<T: Encodable & Equatable>(_ value: T, _ key: String, unless fallback: T) throws {
        if value != fallback { try encode(value, forKey: ModelFileKey(key)) }
    }

    /// Writes `value` when it is present.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, _ key: String) throws {
        try encodeIfPresent(value, forKey: ModelFileKey(key))
    }

    /// Writes `value`.
    mutating func encode<T: Encodable>(_ value: T, _ key: String) throws {
        try encode(value, forKey: ModelFileKey(key))
    }
}
