import Strata

/// How a managed object finds the one model instance that views it, without a weak
/// reference. The model's backing data holds the link (the only strong reference to
/// it); the object points at the link unretained (`ManagedObject.typedModelLink`).
/// When the model goes, its backing data goes, the link's `deinit` runs and clears
/// the object's pointer, in the same deallocation: the pointer is never left on a
/// freed link, and the link's unretained `model` is never read after the model went.
///
/// Why not `weak`: a weak reference gives every model a side table, allocated on the
/// first reference and consulted on every retain and release of the model after it,
/// a cost the typed fetch-by-id path would pay on every model it hands out.
@usableFromInline
final class ModelLink {
    /// The object (the model's backing data also holds it; the link keeps it alive so
    /// that its `deinit` can reach it).
    let object: ManagedObject
    /// The model, set as soon as it is made. Unretained: the model owns the link.
    unowned(unsafe) var model: (any PersistentModel)?

    init(object: ManagedObject) {
        self.object = object
    }

    /// The attribute `key` of the object. `value(forKey:)` finds an attribute by
    /// comparing its entity's few names and reads its field in place: a table of the
    /// object's slots, hashed per access and each slot copied out, would make every
    /// typed access cost a hash and a copy the untyped path does not pay.
    @usableFromInline
    func attributeValue(forKey key: String) throws -> Strata.Value {
        try object.value(forKey: key)
    }

    /// Sets the attribute `key` of the object (`ManagedObject.setValue(_:forKey:)`).
    @usableFromInline
    func setAttributeValue(_ value: Strata.Value, forKey key: String) throws {
        try object.setValue(value, forKey: key)
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
