import Foundation
import StrataLog

extension ManagedObject {
    /// The value of an attribute. Reading a stored attribute fires the fault; an
    /// external binary is read from the blob area now (and kept until `refresh`).
    ///
    /// - Throws: `.unknownKeyPath` naming the entity and key when there is no such
    ///   attribute; `.corrupt` when the record or blob is damaged.
    public func value(forKey key: String) throws -> Value {
        let shape = self.shape
        if let i = shape.attributeSlotIndex(named: key) {
            let facts = shape.slotFacts[i]
            if facts.number >= 0 { return try storedValue(number: facts.number, key: key) }
            return try value(at: shape.slotList[i])
        }
        guard let attribute = entity.attributesByName[key] else {
            if entity.relationshipsByName[key] != nil {
                throw StrataError(.typeMismatch, "\(entity.name).\(key) is a relationship; use object(_:) or objects(_:)", context: ["entity": entity.name, "keyPath": key])
            }
            throw unknownKey(key)
        }
        if attribute.isTransient { return transientValues[key] ?? attribute.defaultValue ?? .null }
        switch try field(key) {
        case .null: return .null
        case .value(let value): return value
        case .blob(let ref, _):
            let number = try fieldNumber(key)
            if let cached = blobCache[number] { return .binary(cached) }
            let bytes = Data(try requireContext().store.records.readBlob(ref))
            blobCache[number] = bytes
            return .binary(bytes)
        case .reference, .references:
            throw StrataError(.corrupt, "\(entity.name).\(key) holds a relationship in the record", context: ["entity": entity.name, "keyPath": key])
        }
    }

    /// Sets an attribute. The value must suit the attribute's type (an `Int` for any
    /// integer width within its range, a `Double` for Float and Double…); `.null` clears it.
    ///
    /// - Throws: `.unknownKeyPath`, `.typeMismatch` naming entity, key and both types.
    public func setValue(_ value: Value, forKey key: String) throws {
        let shape = self.shape
        if let i = shape.attributeSlotIndex(named: key) {
            let facts = shape.slotFacts[i]
            if facts.number >= 0 { return try setStoredValue(value, number: facts.number, type: facts.type, key: key) }
            return try setValue(value, at: shape.slotList[i])
        }
        guard let attribute = entity.attributesByName[key] else { throw unknownKey(key) }
        guard value.conforms(to: attribute.type) else {
            throw StrataError(.typeMismatch, "\(entity.name).\(key) is \(attribute.type), not \(value.caseName)", context: ["entity": entity.name, "keyPath": key])
        }
        let context = try requireContext()
        if attribute.isTransient {
            transientValues[key] = value
            return
        }
        try context.willChange(self)
        changes[key] = value.isNull ? .null : .value(value)
        if !blobCache.isEmpty, let number = layout.fieldNumbers[key] { blobCache[number] = nil }
    }

    // MARK: Typed access

    /// A String attribute (nil when unset). Throws `.typeMismatch` for another type.
    public func string(_ key: String) throws -> String? {
        try typed(key) { if case .string(let s) = $0 { s } else { nil } }
    }

    /// An integer attribute of any width.
    public func int(_ key: String) throws -> Int? {
        try typed(key) { if case .int(let i) = $0 { Int(exactly: i) } else { nil } }
    }

    /// A Double or Float attribute.
    public func double(_ key: String) throws -> Double? {
        try typed(key) { if case .double(let d) = $0 { d } else { nil } }
    }

    /// A Bool attribute (nil when unset).
    public func bool(_ key: String) throws -> Bool? {
        try typed(key) { if case .bool(let b) = $0 { b } else { nil } }
    }

    /// A Date attribute (nil when unset).
    public func date(_ key: String) throws -> Date? {
        try typed(key) { if case .date(let d) = $0 { d } else { nil } }
    }

    /// A Binary attribute; for an external one, this is when its bytes are read.
    public func data(_ key: String) throws -> Data? {
        try typed(key) { if case .binary(let d) = $0 { d } else { nil } }
    }

    /// A Decimal attribute (nil when unset).
    public func decimal(_ key: String) throws -> Decimal? {
        try typed(key) { if case .decimal(let d) = $0 { d } else { nil } }
    }

    /// A UUID attribute (nil when unset).
    public func uuid(_ key: String) throws -> UUID? {
        try typed(key) { if case .uuid(let u) = $0 { u } else { nil } }
    }

    /// A URL attribute (nil when unset).
    public func url(_ key: String) throws -> URL? {
        try typed(key) { if case .url(let u) = $0 { u } else { nil } }
    }

    /// A composite attribute decoded as `type` (a Codable struct kept as JSON).
    public func composite<T: Decodable>(_ key: String, as type: T.Type) throws -> T? {
        guard let data = try typed(key, { if case .composite(let d) = $0 { d } else { nil } }) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw StrataError(.typeMismatch, "\(entity.name).\(key) does not decode as \(T.self): \(error)", context: ["entity": entity.name, "keyPath": key])
        }
    }

    /// Sets a composite attribute from a Codable value.
    public func setComposite<T: Encodable>(_ value: T, forKey key: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try setValue(.composite(try encoder.encode(value)), forKey: key)
    }

    private func typed<T>(_ key: String, _ extract: (Value) -> T?) throws -> T? {
        let value = try value(forKey: key)
        if value.isNull { return nil }
        guard let result = extract(value) else {
            throw StrataError(.typeMismatch, "\(entity.name).\(key) holds \(value.caseName), not \(T.self)", context: ["entity": entity.name, "keyPath": key])
        }
        return result
    }
}

extension ManagedObject {
    /// Sets a String attribute.
    public func setValue(_ value: String?, forKey key: String) throws { try setValue(value.map(Value.string) ?? .null, forKey: key) }
    /// Sets an integer attribute.
    public func setValue(_ value: Int?, forKey key: String) throws { try setValue(value.map { .int(Int64($0)) } ?? .null, forKey: key) }
    /// Sets a Double or Float attribute.
    public func setValue(_ value: Double?, forKey key: String) throws { try setValue(value.map(Value.double) ?? .null, forKey: key) }
    /// Sets a Bool attribute.
    public func setValue(_ value: Bool?, forKey key: String) throws { try setValue(value.map(Value.bool) ?? .null, forKey: key) }
    /// Sets a Date attribute.
    public func setValue(_ value: Date?, forKey key: String) throws { try setValue(value.map(Value.date) ?? .null, forKey: key) }
    /// Sets a Binary attribute (an external one goes to the blob area at save when large enough).
    public func setValue(_ value: Data?, forKey key: String) throws { try setValue(value.map(Value.binary) ?? .null, forKey: key) }
}
