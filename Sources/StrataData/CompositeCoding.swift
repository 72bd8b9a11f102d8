import Foundation

/// How composite attributes (`Codable` values that are not scalars) become store
/// values: JSON with sorted keys, the form `ManagedObject.setComposite` writes, so a
/// value written typed reads untyped and back.
enum CompositeCoding {
    static func encode(_ value: Any) throws -> Value {
        if let optional = value as? any OptionalType, optional.isNone { return .null }
        guard let encodable = value as? any Encodable else {
            throw StrataError(.typeMismatch, "\(type(of: value)) is not Encodable")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .composite(try encoder.encode(encodable))
    }

    static func decode<T: Decodable>(_ value: Value, as type: T.Type) throws -> T? {
        switch value {
        case .null: return nil
        case .composite(let data): return try JSONDecoder().decode(T.self, from: data)
        default:
            throw StrataError(.typeMismatch, "a composite attribute holds \(value), not \(T.self)")
        }
    }
}
