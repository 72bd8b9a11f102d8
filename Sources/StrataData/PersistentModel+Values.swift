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

    public func getValue<Value: PersistentAttribute>(forKey key: String) -> Value {
        let backing = persistentBackingData
        guard let object = backing.object else {
            return backing.pending[key] as? Value ?? Value.placeholder
        }
        do {
            let stored = try object.value(forKey: key)
            if let value = Value(persistentValue: stored) { return value }
            throw StrataError(.typeMismatch, "\(Self.entityName).\(key) holds \(stored), not \(Value.self)", context: ["entity": Self.entityName, "keyPath": key])
        } catch {
            backing.context?.recordAccessError(error, model: Self.entityName, key: key)
            return Value.placeholder
        }
    }

    public func setValue<Value: PersistentAttribute>(_ value: Value, forKey key: String) {
        guard let object = persistentBackingData.object else {
            persistentBackingData.pending[key] = value
            return
        }
        do {
            try object.setValue(value.persistentValue, forKey: key)
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
            if let value = backing.pending[key] as? Value { return value }
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
            persistentBackingData.pending[key] = value
            return
        }
        do {
            try object.setValue(try CompositeCoding.encode(value), forKey: key)
        } catch {
            persistentBackingData.context?.recordAccessError(error, model: Self.entityName, key: key)
        }
    }

    /// What a failed composite read returns: nil for an optional, the property's declared
    /// default, else a value decoded from an empty JSON object or array. A type none of
    /// those can make (a non-optional enum without a default) has no placeholder; that
    /// read traps after the error is recorded — give such properties a default value.
    static func compositePlaceholder<Value: Codable>(_ key: String) -> Value {
        if let none = (Value.self as? any OptionalType.Type)?.noneValue as? Value { return none }
        if let metadata = schemaMetadata.first(where: { $0.name == key }),
           let stored = metadata.defaultValue,
           let value = try? CompositeCoding.decode(stored, as: Value.self) {
            return value
        }
        for empty in ["{}", "[]", "\"\"", "0"] {
            if let value = try? JSONDecoder().decode(Value.self, from: Data(empty.utf8)) { return value }
        }
        preconditionFailure("\(entityName).\(key): no placeholder for \(Value.self) after a failed read; the error is in modelContext.accessErrors")
    }

    // MARK: Relationships

    public func getValue<Model: PersistentModel>(forKey key: String) -> Model? {
        let backing = persistentBackingData
        guard let object = backing.object, let context = backing.context else {
            return backing.pending[key] as? Model
        }
        do {
            guard let target = try object.object(key) else { return nil }
            return try context.model(for: target, as: Model.self)
        } catch {
            context.recordAccessError(error, model: Self.entityName, key: key)
            return nil
        }
    }

    public func getValue<Model: PersistentModel>(forKey key: String) -> Model {
        if let model: Model = getValue(forKey: key) { return model }
        preconditionFailure("\(Self.entityName).\(key) is a required relationship and it is not set (or could not be read; see modelContext.accessErrors)")
    }

    public func getValue<Model: PersistentModel>(forKey key: String) -> [Model] {
        let backing = persistentBackingData
        guard let object = backing.object, let context = backing.context else {
            return backing.pending[key] as? [Model] ?? []
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
            persistentBackingData.pending[key] = value
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
            persistentBackingData.pending[key] = value
            return
        }
        do {
            try object.setObjects(try value.map { try context.attach($0) }, forKey: key)
        } catch {
            context.recordAccessError(error, model: Self.entityName, key: key)
        }
    }
}
