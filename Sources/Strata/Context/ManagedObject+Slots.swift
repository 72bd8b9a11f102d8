import Foundation
import StrataLog

/// One attribute of one entity, resolved once per entity shape: `value(forKey:)` and
/// `setValue(_:forKey:)` find an attribute's slot by its name and go by its field
/// number, instead of resolving the attribute, then its field number, each by a hash
/// of the name, on every call.
struct AttributeSlot: Sendable {
    /// The attribute's name.
    let key: String
    let type: AttributeType
    /// What a transient attribute reads before it is set.
    let defaultValue: Value?
    /// The attribute's field number in the entity's record; nil for a transient one.
    let number: Int?
}

extension StoreSchema.EntityShape {
    /// The slots of every attribute of `entity` (transient ones included) in `layout`.
    static func attributeSlots(entity: EntityDescription, layout: StoreSchema.EntityLayout) -> [String: AttributeSlot] {
        var slots: [String: AttributeSlot] = [:]
        for attribute in entity.attributes {
            let number = layout.fieldNumbers[attribute.name]
            // A stored attribute always has a field; one without is left to the
            // name-based path, which reports it.
            if !attribute.isTransient && number == nil { continue }
            slots[attribute.name] = AttributeSlot(key: attribute.name, type: attribute.type, defaultValue: attribute.defaultValue,
                                                  number: attribute.isTransient ? nil : number)
        }
        return slots
    }

    /// The field number of the stored property `name` in the current layout (the
    /// layout's `fieldNumbers[name]`): for a few fields by comparing names, without
    /// hashing one or copying the layout out of the shape (a migration asks it for
    /// every value it moves).
    func fieldNumber(named name: String) -> Int? {
        guard fieldNames.count <= 16 else { return layout.fieldNumbers[name] }
        return fieldNames.withUnsafeBufferPointer { names in
            for i in names.indices where names[i] == name { return i }
            return nil
        }
    }

    /// The position in `slotList` (and `slotNames`, `slotFacts`) of the attribute `name`.
    /// An entity of a few attributes is searched by comparing names, cheaper than
    /// hashing one: this is every `value(forKey:)` and `setValue(_:forKey:)`.
    func attributeSlotIndex(named name: String) -> Int? {
        guard slotNames.count <= 16 else { return slotIndexByName[name] }
        return slotNames.withUnsafeBufferPointer { names in
            for i in names.indices where names[i] == name { return i }
            return nil
        }
    }
}

extension ManagedObject {
    /// `value(forKey:)` for a resolved attribute: the same answer and errors.
    func value(at slot: AttributeSlot) throws -> Value {
        guard let number = slot.number else { return transientValues[slot.key] ?? slot.defaultValue ?? .null }
        return try storedValue(number: number, key: slot.key)
    }

    /// The value of the stored attribute at field `number` (named `key` in errors).
    func storedValue(number: Int, key: String) throws -> Value {
        switch try field(number: number) {
        case .null: return .null
        case .value(let value): return value
        case .blob(let ref, _):
            if let cached = blobCache[number] { return .binary(cached) }
            let bytes = Data(try requireContext().store.records.readBlob(ref))
            blobCache[number] = bytes
            return .binary(bytes)
        case .reference, .references:
            throw StrataError(.corrupt, "\(entity.name).\(key) holds a relationship in the record", context: ["entity": entity.name, "keyPath": key])
        }
    }

    /// `setValue(_:forKey:)` for a resolved attribute: the same checks and effect.
    func setValue(_ value: Value, at slot: AttributeSlot) throws {
        guard let number = slot.number else {
            guard value.conforms(to: slot.type) else { throw typeMismatch(value, key: slot.key, type: slot.type) }
            _ = try requireContext()
            transientValues[slot.key] = value
            return
        }
        try setStoredValue(value, number: number, type: slot.type, key: slot.key)
    }

    /// Sets the stored attribute at field `number`, of `type` (named `key` in errors).
    func setStoredValue(_ value: Value, number: Int, type: AttributeType, key: String) throws {
        guard value.conforms(to: type) else { throw typeMismatch(value, key: key, type: type) }
        let context = try requireContext()
        try context.willChange(self)
        changes[number] = value.isNull ? .null : .value(value)
        // Asking an empty dictionary to remove a key still hashes the key; and most
        // objects have no side state to ask.
        if hasCachedBlobs { blobCache[number] = nil }
    }

    private func typeMismatch(_ value: Value, key: String, type: AttributeType) -> StrataError {
        StrataError(.typeMismatch, "\(entity.name).\(key) is \(type), not \(value.caseName)", context: ["entity": entity.name, "keyPath": key])
    }
}
