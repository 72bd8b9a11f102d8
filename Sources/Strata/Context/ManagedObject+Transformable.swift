import Foundation
import StrataLog

extension ManagedObject {
    /// A `transformable` attribute's value, decoded by its value transformer as `type`
    /// (nil when the attribute holds none). An external one is read from the blob area
    /// now, as ``data(_:)`` does.
    ///
    /// ```swift
    /// let address = try customer.transformedValue(forKey: "address", as: Address.self)
    /// ```
    ///
    /// - Throws: `.unknownKeyPath` for no such attribute; `.typeMismatch` naming the
    ///   entity, the attribute and the transformer when the attribute is not
    ///   transformable or the bytes do not decode as `type`; `.invalidModel` when the
    ///   transformer is not registered.
    public func transformedValue<T>(forKey key: String, as type: T.Type = T.self) throws -> T? {
        let (attribute, transformer) = try transformableAttribute(key)
        guard case .binary(let data) = try value(forKey: key) else { return nil }
        do {
            return try transformer.value(from: data, as: T.self)
        } catch {
            throw transformFailure(attribute, "does not decode as \(T.self)", error)
        }
    }

    /// Sets a `transformable` attribute from a value its transformer encodes; nil
    /// clears it. The store keeps the transformer's bytes exactly as written.
    ///
    /// ```swift
    /// try customer.setTransformedValue(Address(city: "Lyon"), forKey: "address")
    /// ```
    ///
    /// - Throws: as ``transformedValue(forKey:as:)`` when the value does not encode.
    public func setTransformedValue(_ value: Any?, forKey key: String) throws {
        let (attribute, transformer) = try transformableAttribute(key)
        guard let value else { return try setValue(.null, forKey: key) }
        let data: Data
        do {
            data = try transformer.data(from: value)
        } catch {
            throw transformFailure(attribute, "cannot encode a \(type(of: value))", error)
        }
        try setValue(.binary(data), forKey: key)
    }

    private func transformableAttribute(_ key: String) throws -> (AttributeDescription, any AttributeValueTransformer) {
        guard let attribute = entity.attributesByName[key] else { throw unknownKey(key) }
        guard attribute.type == .transformable else {
            throw StrataError(.typeMismatch, "\(entity.name).\(key) is \(attribute.type.rawValue), not transformable",
                              context: ["entity": entity.name, "keyPath": key])
        }
        let name = attribute.valueTransformerName ?? JSONValueTransformer.name
        guard let transformer = ValueTransformers.transformer(named: name) else {
            throw StrataError(.invalidModel, "\(entity.name).\(key) uses the value transformer '\(name)', which is not registered",
                              context: ["entity": entity.name, "property": key, "valueTransformerName": name])
        }
        return (attribute, transformer)
    }

    private func transformFailure(_ attribute: AttributeDescription, _ what: String, _ error: any Error) -> StrataError {
        let name = attribute.valueTransformerName ?? JSONValueTransformer.name
        let reason = (error as? StrataError)?.message ?? "\(error)"
        return StrataError(.typeMismatch, "\(entity.name).\(attribute.name) (transformer '\(name)') \(what): \(reason)",
                           context: ["entity": entity.name, "keyPath": attribute.name, "valueTransformerName": name])
    }
}
