/// The accessors `@Model` generates call these. A read fires the object's fault; an
/// external-storage attribute reads its bytes now, not before.
///
/// Property accessors cannot throw (the model reads as a plain Swift class), so a
/// failure — a damaged record, a value that no longer decodes, a model used after its
/// context was reset — is kept by the model's context and thrown by its next `save()`
/// and fetches (``ModelContext/accessErrors``): nothing is written after a failed read
/// or write. The read itself returns a placeholder (zero, empty, nil).
extension PersistentModel {
    // MARK: Attributes

    // Inlinable: `@Model`'s accessors call these from the model's own module, where
    // they are specialised for the property's type instead of going through the
    // generic entry points, which would keep the typed path slower than the untyped one.
    @inlinable
    public func getValue<Value: PersistentAttribute>(forKey key: String) -> Value {
        // The backing data is read field by field, not copied whole: a copy retains
        // and releases each of its references on every property read.
        // The link is there exactly when the object is (ModelContext sets both).
        guard let link = persistentBackingData.link else {
            switch persistentBackingData.pending[key] {
            case .attribute(let stored)?: return Value(persistentValue: stored) ?? Value.placeholder
            case .other(let value)?: return value as? Value ?? Value.placeholder
            case nil: return Value.placeholder
            }
        }
        do {
            let stored = try link.attributeValue(forKey: key)
            if let value = Value(persistentValue: stored) { return value }
            throw StrataError(.typeMismatch, "\(Self.entityName).\(key) holds \(stored), not \(Value.self)", context: ["entity": Self.entityName, "keyPath": key])
        } catch {
            persistentBackingData.context?.recordAccessError(error, model: Self.entityName, key: key)
            return Value.placeholder
        }
    }

    @inlinable
    public func setValue<Value: PersistentAttribute>(_ value: Value, forKey key: String) {
        guard let link = persistentBackingData.link else {
            persistentBackingData.pending[key] = .attribute(value.persistentValue)
            return
        }
        do {
            try link.setAttributeValue(value.persistentValue, forKey: key)
        } catch {
            persistentBackingData.context?.recordAccessError(error, model: Self.entityName, key: key)
        }
    }

    // MARK: Composites

    // Disfavoured: String, Date… are Codable too, and must take the attribute overloads.
    @_disfavoredOverload
    public func getValue<Value: Codable>(forKey key: String) -> Value {
        let backing = persistentBackingData
        guard let object = backing.object else {
            if let value = backing.pending.other(key) as? Value { return value }
            return Self.compositePlaceholder(key)
        }
        do {
            if let value = try CompositeCoding.decode(try object.value(forKey: key), as: Value.self) { return value }
            if let none = (Value.self as? any OptionalType.Type)?.noneValue as? Value { return none }
            throw StrataError(.typeMismatch, "\(Self.entityName).\(key) is null, but \(Value.self) is not optional", context: ["entity": Self.entityName, "keyPath": key])
        } catch {
            backing.context?.recordAccessError(error, model: Self.entityName, key: key)
            return Self.compositePlaceholder(key)
        }
    }

    @_disfavoredOverload
    public func setValue<Value: Codable>(_ value: Value, forKey key: String) {
        guard let object = persistentBackingData.object else {
            persistentBackingData.pending[key] = .other(value as Any)
            return
        }
        do {
            try object.setValue(try CompositeCoding.encode(value), forKey: key)
        } catch {
            persistentBackingData.context?.recordAccessError(error, model: Self.entityName, key: key)
        }
    }

    /// What a failed composite read returns: nil for an optional, else the
    /// ``CompositePlaceholder`` (the declared default, a zero value, an enum's first
    /// case). `Schema` refuses a model whose non-optional composite has none of these,
    /// so for a model of a container's schema (and for any model whose initializer set
    /// the property) this never reaches its last line: only a model made by hand with
    /// `init(backingData: ModelBackingData())` of a type every `Schema` refuses can.
    static func compositePlaceholder<Value: Codable>(_ key: String) -> Value {
        if let none = (Value.self as? any OptionalType.Type)?.noneValue as? Value { return none }
        let declared = schemaMetadata.first { $0.name == key }?.defaultValue
        if let value = CompositePlaceholder.make(Value.self, declaredDefault: declared) { return value }
        preconditionFailure("\(entityName).\(key): \(Value.self) has no placeholder; Schema refuses this model (give the property a default value)")
    }

    // MARK: Relationships

    public func getValue<Model: PersistentModel>(forKey key: String) -> Model? {
        let backing = persistentBackingData
        guard let object = backing.object, let context = backing.context else {
            return backing.pending.other(key) as? Model
        }
        do {
            guard let target = try object.object(key) else { return nil }
            return try context.model(for: target, as: Model.self)
        } catch {
            context.recordAccessError(error, model: Self.entityName, key: key)
            return nil
        }
    }

    /// A required (non-optional) to-one. When it is not set — untyped code inserted the
    /// object without it, the destination was deleted and the rule nullified it, or the
    /// read failed — the read records a `validationFailed` error in the context's
    /// ``ModelContext/accessErrors`` (so the next `save()` refuses, as the save's own
    /// validation would) and returns a detached placeholder model: a new instance of
    /// `Model`, never inserted, whose properties read their placeholders and whose
    /// writes go nowhere. SwiftData traps here; a server should not.
    public func getValue<Model: PersistentModel>(forKey key: String) -> Model {
        if let model: Model = getValue(forKey: key) { return model }
        let missing = StrataError(.validationFailed, "\(Self.entityName).\(key) is a required relationship and it is not set; the read returned a detached placeholder \(Model.entityName)", context: ["entity": Self.entityName, "keyPath": key])
        persistentBackingData.context?.recordAccessError(missing, model: Self.entityName, key: key)
        return Model(backingData: ModelBackingData())
    }

    public func getValue<Model: PersistentModel>(forKey key: String) -> [Model] {
        let backing = persistentBackingData
        guard let object = backing.object, let context = backing.context else {
            return backing.pending.other(key) as? [Model] ?? []
        }
        do {
            return try object.objects(key).map { try context.model(for: $0, as: Model.self) }
        } catch {
            context.recordAccessError(error, model: Self.entityName, key: key)
            return []
        }
    }

    public func setValue<Model: PersistentModel>(_ value: Model?, forKey key: String) {
        guard let object = persistentBackingData.object, let context = persistentBackingData.context else {
            persistentBackingData.pending[key] = .other(value as Any)
            // As in SwiftData, a new model linked to one a context holds joins that
            // context (and the link with it), rather than being lost at save.
            value?.persistentBackingData.context?.insert(self)
            return
        }
        do {
            try object.setObject(try value.map { try context.attach($0) }, forKey: key)
        } catch {
            context.recordAccessError(error, model: Self.entityName, key: key)
        }
    }

    public func setValue<Model: PersistentModel>(_ value: Model, forKey key: String) {
        setValue(Optional(value), forKey: key)
    }

    public func setValue<Model: PersistentModel>(_ value: [Model], forKey key: String) {
        guard let object = persistentBackingData.object, let context = persistentBackingData.context else {
            persistentBackingData.pending[key] = .other(value)
            value.lazy.compactMap(\.persistentBackingData.context).first?.insert(self)
            return
        }
        do {
            try object.setObjects(try value.map { try context.attach($0) }, forKey: key)
        } catch {
            context.recordAccessError(error, model: Self.entityName, key: key)
        }
    }
}
