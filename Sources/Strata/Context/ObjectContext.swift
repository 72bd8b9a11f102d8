import Foundation
import StrataLog

/// A scratchpad of objects confined to one task or thread, as Core Data's and
/// SwiftData's contexts are (it is not `Sendable`). It keeps one object per id
/// (uniquing), tracks inserts, updates and deletes, and `save()` commits them as one
/// transaction.
///
/// ```swift
/// let context = store.newContext()
/// let sales = try context.insert("Department")
/// try sales.setValue("Sales", forKey: "name")
/// let ada = try context.insert("Employee")
/// try ada.setObject(sales, forKey: "department")
/// try context.save()
/// ```
public final class ObjectContext {
    /// The store this context reads from and saves to.
    public let store: ObjectStore
    /// What a save does when objects changed in the store since this context read them.
    public var mergePolicy: MergePolicy = .error

    /// Every object handed out, not retained: unchanged objects go when the caller lets
    /// go, and an object takes its own entry out as it goes (``forget(_:)``).
    var registry: [RecordKey: RegisteredObject] = [:]
    /// Objects with unsaved changes (inserted, updated or deleted), strongly.
    var changed: [RecordKey: ManagedObject] = [:]
    /// Records a fetch already decoded, waiting for their fault to fire.
    var rowCache: [RecordKey: StoredObject] = [:]
    /// Unsaved membership changes of stored to-manys, by edge relation tag.
    var edgeChanges: [UInt16: EdgeChanges] = [:]

    /// Judges every fetch on managed objects, never compiled (tests compare the two).
    var interpretsFetches = false

    /// A registry entry. Neither strong nor weak: a `ManagedObject` removes its entry in
    /// its `deinit`, so every entry names a live object. A weak reference gave each
    /// object a side table, and with it slow-path reference counting on every retain
    /// and release of the object and an allocation per object (a fifth of an insert's
    /// time), and left an empty entry per object gone, which sweeps had to clear.
    struct RegisteredObject {
        unowned(unsafe) let target: ManagedObject
        /// The object's identity, compared without loading the reference.
        let identity: ObjectIdentifier

        init(_ object: ManagedObject) {
            target = object
            identity = ObjectIdentifier(object)
        }

        /// The object (optional, as a weak reference's was, for the callers' sake).
        var object: ManagedObject? { target }
    }

    /// Registers an object handed out under its key.
    func register(_ object: ManagedObject, key: RecordKey) {
        registry[key] = RegisteredObject(object)
    }

    /// Takes a departing object's entry out of the registry (its `deinit` calls this);
    /// an entry that names another object for the key (registered after a reset, or
    /// after this one was deleted and saved) stays.
    func forget(_ object: ManagedObject) {
        let key = object.objectID.key
        if let entry = registry[key], entry.identity == ObjectIdentifier(object) { registry[key] = nil }
    }

    /// Each entity's shape, by name and by key tag (the store schema's, kept once).
    let shapes: [String: StoreSchema.EntityShape]
    let shapeByTag: [UInt16: StoreSchema.EntityShape]

    init(store: ObjectStore) {
        self.store = store
        shapes = store.schema.shapes
        shapeByTag = store.schema.entityByTag.compactMapValues { [shapes] in shapes[$0] }
    }

    var schema: StoreSchema { store.schema }

    /// Whether any object has unsaved changes.
    public var hasChanges: Bool { changed.values.contains { $0.hasChanges } || edgeChanges.values.contains { !$0.isEmpty } }
    /// Objects inserted and not yet saved.
    public var insertedObjects: Set<ManagedObject> { Set(changed.values.filter(\.isInserted)) }
    /// Objects with unsaved changes to stored properties.
    public var updatedObjects: Set<ManagedObject> { Set(changed.values.filter(\.isUpdated)) }
    /// Objects deleted and not yet saved.
    public var deletedObjects: Set<ManagedObject> { Set(changed.values.filter { $0.isDeleted && !$0.isNew }) }
    /// Objects this context holds right now.
    public var registeredObjects: [ManagedObject] { registry.values.compactMap(\.object) }

    // MARK: Objects

    /// Inserts a new object of `entityName`, with the model's default values.
    ///
    /// - Throws: `.unknownKeyPath` for an entity the model lacks; `.invalidArgument`
    ///   for an abstract entity.
    public func insert(_ entityName: String) throws -> ManagedObject {
        // The shapes this context keeps: `store.model` and `store.schema` are structs,
        // and reaching into them copied (and retained) them on every insert.
        guard let shape = shapes[entityName] else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(entityName)'", context: ["entity": entityName])
        }
        guard !shape.isAbstract else {
            throw StrataError(.invalidArgument, "\(entityName) is abstract: insert one of its sub-entities (\(shape.entity.allSubentityNames.joined(separator: ", ")))", context: ["entity": entityName])
        }
        let key = try store.allocateKey(tag: shape.layout.tag)
        let object = ManagedObject(id: ObjectID(entityName: entityName, key: key, storeIdentifier: store.identifier), shape: shape, context: self)
        object.isNew = true
        for (number, value) in shape.insertDefaults { object.changes[number] = value }
        register(object, key: key)
        changed[key] = object
        return object
    }

    /// The object with this id, as a fault if it is not loaded. Reading it throws
    /// `.objectNotFound` if it does not exist.
    public func object(with id: ObjectID) throws -> ManagedObject {
        guard id.storeIdentifier == store.identifier else {
            throw StrataError(.invalidArgument, "\(id.uriRepresentation) belongs to another store", context: ["object": id.uriRepresentation])
        }
        return try object(forKey: id.key)
    }

    /// The object with this id, loaded; throws `.objectNotFound` when the store has none.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        let object = try object(with: id)
        if object.isDeleted {
            throw StrataError(.objectNotFound, "\(id) is deleted in this context", context: ["object": id.uriRepresentation])
        }
        try object.fire()
        return object
    }

    func object(forKey key: RecordKey) throws -> ManagedObject {
        if let existing = registry[key]?.object { return existing }
        guard let shape = shapeByTag[StoreSchema.tag(of: key)] else {
            throw StrataError(.objectNotFound, "no entity of this model has key \(key)", context: ["key": "\(key.rawValue)"])
        }
        let object = ManagedObject(id: ObjectID(entityName: shape.entity.name, key: key, storeIdentifier: store.identifier), shape: shape, context: self)
        register(object, key: key)
        return object
    }

    /// Loads a fault's record, and those of up to a batch of its fetch siblings.
    func fireFault(_ object: ManagedObject) throws {
        let key = object.objectID.key
        if let cached = rowCache.removeValue(forKey: key) {
            object.stored = cached
            return
        }
        var keys = [key]
        if let group = object.faultGroup {
            keys = group.batch(around: key, size: group.batchSize > 0 ? group.batchSize : store.options.faultBatchSize).filter { k in
                k == key || (registry[k]?.object.map { $0.stored == nil && !$0.isNew } ?? false)
            }
        }
        let records = try store.records.get(keys)
        for (k, record) in zip(keys, records) {
            guard let record else { continue }
            let decoded = try schema.decode(record)
            if let sibling = registry[k]?.object, sibling.stored == nil { sibling.stored = decoded }
        }
        object.faultGroup = nil
        guard object.stored != nil else {
            throw StrataError(.objectNotFound, "\(object.objectID) does not exist in the store (deleted, or never saved)", context: ["object": object.objectID.uriRepresentation])
        }
    }

    /// Records that `object` is about to change: loads it (a save rewrites whole
    /// records) and tracks it.
    func willChange(_ object: ManagedObject) throws {
        if object.isDeleted {
            throw StrataError(.invalidArgument, "\(object.objectID) is deleted; it cannot change", context: ["object": object.objectID.uriRepresentation])
        }
        try object.fire()
        changed[object.objectID.key] = object
    }

    // MARK: Undoing

    /// Discards every unsaved change: inserted objects are forgotten, deleted ones come
    /// back, updated ones show their stored values again.
    public func rollback() {
        for object in changed.values {
            object.changes.removeAll()
            object.transientValues = [:]
            object.blobCache = [:]
            if object.isNew {
                object.isDeleted = true
                registry[object.objectID.key] = nil
            } else {
                object.isDeleted = false
            }
        }
        changed = [:]
        edgeChanges = [:]
    }

    /// Turns an object back into a fault and frees its values (external binaries
    /// included). With `mergeChanges`, its unsaved changes and transient values stay
    /// and apply over the store's newest values when it next loads, as in Core Data;
    /// without, they are discarded.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard !object.isNew, object.context === self else { return }
        object.stored = nil
        object.blobCache = [:]
        rowCache[object.objectID.key] = nil
        if !mergeChanges {
            object.changes.removeAll()
            object.transientValues = [:]
            object.isDeleted = false
            changed[object.objectID.key] = nil
            for tag in Array(edgeChanges.keys) { edgeChanges[tag]?.forget(object.objectID.key) }
        }
    }

    /// Refreshes every registered object.
    public func refreshAllObjects() {
        for object in registeredObjects { refresh(object, mergeChanges: true) }
    }

    /// Forgets every object and change, as a new context.
    public func reset() {
        for object in changed.values where object.isNew { object.isDeleted = true }
        registry = [:]
        changed = [:]
        rowCache = [:]
        edgeChanges = [:]
    }
}
