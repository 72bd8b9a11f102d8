@_spi(Typed) import Strata

/// How a managed object finds the one model instance that views it, without a weak
/// reference. The model's backing data holds the link (the only strong reference to
/// it); the object points at the link unretained (`ManagedObject.typedModelLink`).
/// When the model goes, its backing data goes, the link's `deinit` runs and clears
/// the object's pointer, in the same deallocation: the pointer is never left on a
/// freed link, and the link's unretained `model` is never read after the model went.
///
/// Why not `weak`: a weak reference gives every model a side table, allocated on the
/// first reference and consulted on every retain and release of the model after it.
/// On the typed fetch-by-id path that was about a fifth of the time (issue 17).
@usableFromInline
final class ModelLink {
    /// The object (the model's backing data also holds it; the link keeps it alive so
    /// that its `deinit` can reach it).
    let object: ManagedObject
    /// The model, set as soon as it is made. Unretained: the model owns the link.
    unowned(unsafe) var model: (any PersistentModel)?

    /// The object's attributes resolved to field numbers, so that a property access
    /// hashes its name once instead of the three times `value(forKey:)` does.
    let slots: [String: AttributeSlot]

    init(object: ManagedObject) {
        self.object = object
        self.slots = object.attributeSlots
    }

    /// The attribute `key` of the object (`ManagedObject.value(forKey:)`, by slot).
    @usableFromInline
    func attributeValue(forKey key: String) throws -> Strata.Value {
        guard let slot = slots[key] else { return try object.value(forKey: key) }
        return try object.value(at: slot)
    }

    /// Sets the attribute `key` of the object (`ManagedObject.setValue(_:forKey:)`, by slot).
    @usableFromInline
    func setAttributeValue(_ value: Strata.Value, forKey key: String) throws {
        guard let slot = slots[key] else { return try object.setValue(value, forKey: key) }
        try object.setValue(value, at: slot)
    }

    deinit {
        if object.typedModelLink === self { object.typedModelLink = nil }
    }

    /// The model viewing `object`, if one is alive.
    static func model(of object: ManagedObject) -> (any PersistentModel)? {
        guard let link = object.typedModelLink else { return nil }
        return unsafeDowncast(link, to: ModelLink.self).model
    }
}
