import Strata

/// A scratchpad of models confined to one task, as SwiftData's `ModelContext`: thin over
/// an `ObjectContext` (not `Sendable`; one per task). It inserts, deletes, fetches and
/// saves models, and keeps one model instance per object, so `a.department === b.department`
/// when both are the same department.
///
/// ```swift
/// let context = ModelContext(container)
/// context.insert(Department(name: "Sales"))
/// try context.save()
/// ```
///
/// Autosave is off (``autosaveEnabled`` is `false`): on a server nothing is written until
/// `save()` says so. Typed and untyped code share the context: ``objectContext`` is the
/// untyped one, ``model(for:as:)`` views one of its objects as a model, and
/// ``PersistentModel/managedObject`` goes back.
public final class ModelContext {
    /// The container the context came from.
    public let container: ModelContainer
    /// The untyped context behind this one.
    public let objectContext: ObjectContext
    /// Always `false`: Strata has no run loop to save on. Saving is explicit.
    public var autosaveEnabled: Bool { false }
    /// Failures of property reads and writes (accessors cannot throw), oldest first;
    /// ``save()`` throws the first and clears them.
    public private(set) var accessErrors: [StrataError] = []
    /// The schema's lookup tables, held here so that a lookup does not copy the
    /// container's whole `Schema` value (and retain and release everything in it).
    let typesByEntity: [String: any PersistentModel.Type]
    let metadataByEntity: [String: [Schema.PropertyMetadata]]
    /// The last model type ``attach(_:)`` found in the schema: inserts come in runs of
    /// one type, and each would otherwise hash the entity's name.
    private var lastAttachedType: ObjectIdentifier?
    /// The last answer of ``modelType(of:)``.
    private var lastModelType: (entity: String, type: any PersistentModel.Type)?

    /// A new context on the container's store.
    public init(_ container: ModelContainer) {
        self.container = container
        self.objectContext = container.store.newContext()
        self.typesByEntity = container.schema.typesByEntity
        self.metadataByEntity = container.schema.metadataByEntity
    }

    /// A typed view of an existing untyped context of the container's store: both see the
    /// same objects and changes.
    public init(_ container: ModelContainer, objectContext: ObjectContext) {
        self.container = container
        self.objectContext = objectContext
        self.typesByEntity = container.schema.typesByEntity
        self.metadataByEntity = container.schema.metadataByEntity
    }

    // MARK: Inserting and deleting

    /// Inserts a model, and the models it refers to that are not inserted yet, as
    /// SwiftData does. A failure (a type the container's schema lacks) is thrown by the
    /// next ``save()``.
    public func insert<T: PersistentModel>(_ model: T) {
        do {
            _ = try attach(model)
        } catch {
            recordAccessError(error, model: T.entityName, key: nil)
        }
    }

    /// Marks a model deleted; its delete rules apply at once, the store changes at save.
    /// A failure (a `deny` rule with destinations left) is thrown by the next ``save()``;
    /// use ``delete(checking:)`` to have it now.
    public func delete<T: PersistentModel>(_ model: T) {
        do {
            try delete(checking: model)
        } catch {
            recordAccessError(error, model: T.entityName, key: nil)
        }
    }

    /// Marks a model deleted, throwing what the delete rules refuse.
    ///
    /// - Throws: `deleteDenied` when a `deny` rule has destinations left.
    public func delete<T: PersistentModel>(checking model: T) throws {
        guard let object = model.persistentBackingData.object else { return }
        try objectContext.delete(object)
    }

    /// Deletes every model of `model` that `predicate` accepts (all when nil) at the
    /// next save, each through its delete rules, walking the store in batches.
    ///
    /// - Throws: the predicate's translation error; `deleteDenied`.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Foundation.Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = true
        let request = try descriptor.fetchRequest(schema: container.schema)
        for id in try objectContext.fetchObjectIDs(request) {
            try objectContext.delete(try objectContext.object(with: id))
        }
    }

    // MARK: Saving

    /// Whether anything is unsaved.
    public var hasChanges: Bool { objectContext.hasChanges }

    /// Commits every change as one transaction.
    ///
    /// - Throws: the first recorded accessor failure (``accessErrors``), before writing
    ///   anything; else the save's own errors (`validationFailed` — a unique value taken too —,
    ///   `deleteDenied`, `conflict`…).
    public func save() throws {
        try throwAccessErrors()
        try objectContext.save()
    }

    /// Throws the first recorded accessor failure (and clears them), if any.
    func throwAccessErrors() throws {
        guard let first = accessErrors.first else { return }
        let more = accessErrors.count - 1
        accessErrors = []
        var error = first
        if more > 0 { error.context["moreAccessErrors"] = "\(more)" }
        throw error
    }

    /// Discards unsaved changes (and recorded accessor failures).
    public func rollback() {
        accessErrors = []
        objectContext.rollback()
    }

    /// The models inserted and not yet saved.
    public var insertedModelsArray: [any PersistentModel] { models(objectContext.insertedObjects) }
    /// The models changed and not yet saved.
    public var changedModelsArray: [any PersistentModel] { models(objectContext.updatedObjects) }
    /// The models deleted and not yet saved.
    public var deletedModelsArray: [any PersistentModel] { models(objectContext.deletedObjects) }

    // MARK: Typed and untyped

    /// The model instance of an untyped object of this context (one per object).
    ///
    /// - Throws: `typeMismatch` when the object is not an `T`; `invalidArgument` when it
    ///   belongs to another context.
    public func model<T: PersistentModel>(for object: ManagedObject, as type: T.Type = T.self) throws -> T {
        if let existing = ModelLink.model(of: object) {
            // One model per object: a class check, not a dynamic cast of the existential.
            if Swift.type(of: existing) == T.self { return unsafeDowncast(existing, to: T.self) }
            if let typed = existing as? T { return typed }
        }
        guard object.entityName == T.entityName else {
            throw StrataError(.typeMismatch, "\(object.objectID) is a \(object.entityName), not a \(T.entityName)", context: ["entity": object.entityName, "object": object.objectID.uriRepresentation])
        }
        guard object.context === objectContext else {
            throw StrataError(.invalidArgument, "\(object.objectID) belongs to another context", context: ["object": object.objectID.uriRepresentation])
        }
        return makeModel(T.self, for: object)
    }

    /// The model with this identifier, as a fault when it is not loaded; reading it fails
    /// (into ``accessErrors``) when there is no such object.
    public func model(for id: PersistentIdentifier) throws -> any PersistentModel {
        guard let objectID = id.objectID else {
            throw StrataError(.invalidArgument, "\(id) is temporary: the model is not inserted")
        }
        let object = try objectContext.object(with: objectID)
        if let existing = ModelLink.model(of: object) { return existing }
        // The object is this context's and of the type's entity (the map is by entity
        // name): made here without the generic checks of model(for:as:).
        return makeModel(try modelType(of: object), for: object)
    }

    /// The model with this identifier, loaded.
    ///
    /// - Throws: `objectNotFound` when the store has no such object.
    public func existingModel<T: PersistentModel>(for id: PersistentIdentifier, as type: T.Type = T.self) throws -> T {
        guard let objectID = id.objectID else {
            throw StrataError(.invalidArgument, "\(id) is temporary: the model is not inserted")
        }
        return try model(for: try objectContext.existingObject(with: objectID), as: T.self)
    }

    /// The model with this identifier if this context holds it already.
    public func registeredModel<T: PersistentModel>(for id: PersistentIdentifier) -> T? {
        guard let objectID = id.objectID else { return nil }
        return objectContext.registeredObjects.first { $0.objectID == objectID }.flatMap { try? model(for: $0, as: T.self) }
    }

    // MARK: Internals

    var schema: Schema { container.schema }

    /// The object behind `model`, inserting the model (and what it refers to) first when
    /// it is new.
    func attach<T: PersistentModel>(_ model: T) throws -> ManagedObject {
        if let object = model.persistentBackingData.object {
            guard object.context === objectContext else {
                throw StrataError(.invalidArgument, "\(object.objectID) belongs to another context; fetch it in this one by its persistentModelID", context: ["object": object.objectID.uriRepresentation])
            }
            return object
        }
        if lastAttachedType != ObjectIdentifier(T.self) {
            guard typesByEntity[T.entityName] != nil else {
                throw StrataError(.unknownKeyPath, "\(T.entityName) is not one of the container's models; add it to ModelContainer(for:)", context: ["entity": T.entityName])
            }
            lastAttachedType = ObjectIdentifier(T.self)
        }
        let object = try objectContext.insert(T.entityName)
        let pending = model.persistentBackingData.pending
        let link = ModelLink(object: object)
        model.persistentBackingData = ModelBackingData(object: object, context: self, link: link)
        link.model = model
        object.typedModelLink = link
        var metadata: [Schema.PropertyMetadata]?
        for (key, pendingValue) in pending.entries {
            let value: Any
            switch pendingValue {
            case .attribute(let stored):
                // Kept in its stored form: written without looking the property up.
                try link.setAttributeValue(stored, forKey: key)
                continue
            case .other(let other):
                value = other
            }
            let properties = metadata ?? metadataByEntity[T.entityName] ?? T.schemaMetadata
            metadata = properties
            guard let property = properties.first(where: { $0.name == key }) else { continue }
            switch property.kind {
            case .attribute:
                if let attribute = value as? any PersistentAttribute {
                    try object.setValue(attribute.persistentValue, forKey: property.name)
                }
            case .composite:
                try object.setValue(try CompositeCoding.encode(value), forKey: property.name)
            case .toOne:
                guard let target = value as? any PersistentModel else { continue }
                try object.setObject(try attach(target), forKey: property.name)
            case .toMany:
                guard let targets = value as? [any PersistentModel], !targets.isEmpty else { continue }
                try object.setObjects(try targets.map { try attach($0) }, forKey: property.name)
            case .unsupported:
                continue
            }
        }
        return object
    }

    /// A new model of `type` viewing `object`, linked to it (the object is this
    /// context's and of the type's entity: the callers checked).
    func makeModel<T: PersistentModel>(_ type: T.Type, for object: ManagedObject) -> T {
        let link = ModelLink(object: object)
        let model = type.init(backingData: ModelBackingData(object: object, context: self, link: link))
        link.model = model
        object.typedModelLink = link
        return model
    }

    /// The model type of an object's entity. Objects come mostly in runs of one entity:
    /// the last answer is kept, so a run costs one string comparison per object instead
    /// of a hash of the name.
    func modelType(of object: ManagedObject) throws -> any PersistentModel.Type {
        let name = object.entityName
        if let last = lastModelType, last.entity == name { return last.type }
        guard let type = typesByEntity[name] else {
            throw StrataError(.unknownKeyPath, "the container's schema has no model for entity \(name)", context: ["entity": name])
        }
        lastModelType = (name, type)
        return type
    }

    @usableFromInline
    func recordAccessError(_ error: any Error, model: String, key: String?) {
        var strata = error as? StrataError ?? StrataError(.invalidArgument, "\(error)")
        strata.context["model"] = model
        if let key { strata.context["property"] = key }
        accessErrors.append(strata)
    }

    private func models(_ objects: Set<ManagedObject>) -> [any PersistentModel] {
        objects.sorted { $0.objectID < $1.objectID }.compactMap { object in
            guard let type = try? modelType(of: object) else { return nil }
            return try? model(for: object, as: type)
        }
    }
}
