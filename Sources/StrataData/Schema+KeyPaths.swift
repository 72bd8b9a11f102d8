extension Schema {
    /// The property name of a model key path (`\Employee.salary` → `salary`).
    ///
    /// - Throws: `unknownKeyPath` when the key path is not a persisted property of the
    ///   entity (a computed or `@Transient` property, or a path through a value).
    func propertyName(of keyPath: AnyKeyPath, in entity: String) throws -> String {
        if let name = keyPathNames[keyPath] { return name }
        throw StrataError(.unknownKeyPath, "\(keyPath) is not a persisted property of \(entity): the store cannot fetch or sort by it (computed and @Transient properties are not stored)", context: ["entity": entity, "keyPath": "\(keyPath)"])
    }

    static func keyPathNames(_ types: [any PersistentModel.Type]) -> [AnyKeyPath: String] {
        var names: [AnyKeyPath: String] = [:]
        for type in types {
            for property in type.schemaMetadata { names[property.keyPath] = property.name }
        }
        return names
    }
}
