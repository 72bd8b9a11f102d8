import Foundation

/// Turns the values of a `transformable` attribute into the bytes a store keeps, and
/// back, as Core Data's `ValueTransformer` subclasses named by an attribute's
/// `valueTransformerName`.
///
/// Register a transformer under a name before opening a store whose model names it;
/// the store keeps the bytes exactly as ``data(from:)`` returns them (an image's PNG
/// bytes, a custom encoding), and a migration carries them over unchanged.
///
/// ```swift
/// struct PNGTransformer: AttributeValueTransformer {
///     func data(from value: Any) throws -> Data {
///         guard let image = value as? Image else { throw StrataError(.typeMismatch, "not an Image") }
///         return image.pngData
///     }
///     func value<T>(from data: Data, as type: T.Type) throws -> T {
///         guard let image = try Image(png: data) as? T else { throw StrataError(.typeMismatch, "not \(T.self)") }
///         return image
///     }
/// }
/// try ValueTransformers.register(PNGTransformer(), named: "PNGImage")
/// ```
///
/// For one Swift type, ``ClosureValueTransformer`` saves writing the casts.
/// Implementations must be `Sendable`: any task may read or write through them.
public protocol AttributeValueTransformer: Sendable {
    /// The bytes to store for `value` (Core Data's `transformedValue(_:)`).
    ///
    /// - Throws: Any error when `value` is not of a type the transformer handles or
    ///   cannot be encoded; the object layer reports it naming the attribute.
    func data(from value: Any) throws -> Data

    /// The value that stored `data` stands for, as `type` (Core Data's
    /// `reverseTransformedValue(_:)`).
    ///
    /// - Throws: Any error when the bytes do not decode, or not as `type`.
    func value<T>(from data: Data, as type: T.Type) throws -> T
}

/// An ``AttributeValueTransformer`` for one Swift type, from two closures.
///
/// ```swift
/// let celsius = ClosureValueTransformer<Temperature>(
///     encode: { Data(withUnsafeBytes(of: $0.celsius.bitPattern.littleEndian, Array.init)) },
///     decode: { Temperature(celsius: Double(bitPattern: UInt64(littleEndian: $0.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))) })
/// try ValueTransformers.register(celsius, named: "Celsius")
/// ```
public struct ClosureValueTransformer<Transformed>: AttributeValueTransformer {
    private let encode: @Sendable (Transformed) throws -> Data
    private let decode: @Sendable (Data) throws -> Transformed

    /// A transformer that stores what `encode` writes and reads it back with `decode`.
    public init(encode: @escaping @Sendable (Transformed) throws -> Data,
                decode: @escaping @Sendable (Data) throws -> Transformed) {
        self.encode = encode
        self.decode = decode
    }

    /// `encode(value)`, when `value` is a `Transformed`.
    ///
    /// - Throws: `StrataError` `.typeMismatch` for a value of another type; what
    ///   `encode` throws.
    public func data(from value: Any) throws -> Data {
        guard let typed = value as? Transformed else {
            throw StrataError(.typeMismatch, "the transformer takes \(Transformed.self), not \(type(of: value))")
        }
        return try encode(typed)
    }

    /// `decode(data)`, as `T`.
    ///
    /// - Throws: `StrataError` `.typeMismatch` when `T` is not what `decode` returns;
    ///   what `decode` throws.
    public func value<T>(from data: Data, as type: T.Type) throws -> T {
        guard let typed = try decode(data) as? T else {
            throw StrataError(.typeMismatch, "the transformer gives \(Transformed.self), not \(T.self)")
        }
        return typed
    }
}
