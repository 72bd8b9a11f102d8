import Foundation
import StrataLog

/// One attribute of one entity, resolved once: what StrataData's typed accessors read
/// and write through. The untyped `value(forKey:)` resolves the name on every call (the
/// attribute, then the field number, then the unsaved change, each a hash of the
/// name); a typed model looks its slot up once per access and goes by field number.
@_spi(Typed) public struct AttributeSlot: Sendable {
    /// The attribute's name.
    public let key: String
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

    /// The slot of the attribute `name`, nil when the entity has none (or it is stored
    /// without a field, which the name-based path reports). An entity of a few
    /// attributes is searched by comparing names, cheaper than hashing one: this is
    /// every `value(forKey:)` and `setValue(_:forKey:)`.
    func attributeSlot(named name: String) -> AttributeSlot? {
        guard slotList.count <= 16 else { return attributeSlots[name] }
        for slot in slotList where slot.key == name { return slot }
        return nil
    }
}

extension ManagedObject {
    /// The entity's attributes resolved for access by field number, by name.
    @_spi(Typed) public var attributeSlots: [String: AttributeSlot] { shape.attributeSlots }

    /// `value(forKey:)` for a resolved attribute: the same answer and errors.
    @_spi(Typed) public func value(at slot: AttributeSlot) throws -> Value {
        guard let number = slot.number else { return transientValues[slot.key] ?? slot.defaultValue ?? .null }
        switch try field(number: number) {
        case .null: return .null
        case .value(let value): return value
        case .blob(let ref, _):
            if let cached = blobCache[number] { return .binary(cached) }
            let bytes = Data(try requireContext().store.records.readBlob(ref))
            blobCache[number] = bytes
            return .binary(bytes)
        case .reference, .references:
            throw StrataError(.corrupt, "\(entity.name).\(slot.key) holds a relationship in the record", context: ["entity": entity.name, "keyPath": slot.key])
        }
    }

    /// `setValue(_:forKey:)` for a resolved attribute: the same checks and effect.
    @_spi(Typed) public func setValue(_ value: Value, at slot: AttributeSlot) throws {
        guard value.conforms(to: slot.type) else {
            throw StrataError(.typeMismatch, "\(entity.name).\(slot.key) is \(slot.type), not \(value.caseName)", context: ["entity": entity.name, "keyPath": slot.key])
        }
        let context = try requireContext()
        guard let number = slot.number else {
            transientValues[slot.key] = value
            return
        }
        try context.willChange(self)
        changes[number] = value.isNull ? .null : .value(value)
        // Asking an empty dictionary to remove a key still hashes the key.
        if !blobCache.isEmpty { blobCache[number] = nil }
    }
}
