import Foundation

/// The built-in value transformer, registered as ``name`` (`"JSON"`): any `Codable`
/// value, stored as its JSON encoding (keys sorted, so equal values store equal bytes).
///
/// A `transformable` attribute declared without a transformer name uses it:
///
/// ```swift
/// Attribute("address", .transformable, optional: true)   // valueTransformerName "JSON"
/// try customer.setTransformedValue(Address(city: "Lyon"), forKey: "address")
/// let address = try customer.transformedValue(forKey: "address", as: Address.self)
/// ```
///
/// Unlike a `composite` attribute (JSON the store itself checks and exports), the
/// bytes of a transformable attribute are opaque to the store: a model can later name
/// a transformer of its own for the same attribute only through a custom migration.
public struct JSONValueTransformer: AttributeValueTransformer {
    /// The name the built-in transformer is registered under. It cannot be replaced.
    public static let name = "JSON"

    /// Creates the transformer.
    public init() {}

    /// The JSON encoding of an `Encodable` value, keys sorted.
    ///
    /// - Throws: `StrataError` `.typeMismatch` for a value that is not `Encodable`, or
    ///   the encoder's error.
    public func data(from value: Any) throws -> Data {
        guard let encodable = value as? any Encodable else {
            throw StrataError(.typeMismatch, "the JSON transformer takes Encodable values, not \(type(of: value))")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(encodable)
    }

    /// The value decoded from JSON as `T`, which must be `Decodable`.
    ///
    /// - Throws: `StrataError` `.typeMismatch` when `T` is not `Decodable`, or the
    ///   decoder's error.
    public func value<T>(from data: Data, as type: T.Type) throws -> T {
        guard let decodable = T.self as? any Decodable.Type else {
            throw StrataError(.typeMismatch, "the JSON transformer decodes Decodable types, not \(T.self)")
        }
        let decoded = try JSONDecoder().decode(decodable, from: data)
        guard let typed = decoded as? T else {
            throw StrataError(.typeMismatch, "the JSON transformer decoded \(Swift.type(of: decoded)), not \(T.self)")
        }
        return typed
    }
}
