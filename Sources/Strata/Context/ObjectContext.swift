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
    /// Who this context's saves are made by, recorded in their history entries
    /// (``HistoryTransaction/author``), as Core Data's `transactionAuthor`.
    public var transactionAuthor: String?
    /// The context's name, recorded in its saves' history entries
    /// (``HistoryTransaction/contextName``).
    public var name: String?

    /// Every object handed out, not retained: unchanged objects go when the caller lets
    /// go, and an object takes its own entry out as it goes (``forget(_:)``).
    ///
    /// This state is touched on every insert, change and fault, and the context is
    /// confined to one task: the runtime's exclusivity checks are left out, as on
    /// `ManagedObject`'s state (no access to them overlaps another).
    @exclusivity(unchecked) var registry = ObjectRegistry()
    /// Objects with unsaved changes (inserted, updated or deleted), strongly. Every
    /// mutation moves `changedGeneration` on, so an object stamped with the current
    /// generation is known to be here without hashing its key (``willChange(_:)``).
    @exclusivity(unchecked) var changed = ChangedObjects() {
        didSet { changedGeneration &+= 1 }
    }
    /// Moves on at every mutation of `changed`; objects start at 0, never current.
    @exclusivity(unchecked) private(set) var changedGeneration: UInt64 = 1
    /// Records a fetch already decoded, waiting for their fault to fire.
    @exclusivity(unchecked) var rowCache: [RecordKey: StoredObject] = [:]
    /// Unsaved membership changes of stored to-manys, by edge relation tag.
    var edgeChanges: [UInt16: EdgeChanges] = [:]
    /// During a save under ``MergePolicy/contextWins``: the store's fields of each
    /// conflicting object that the save replaces (empty when the store deleted it), for
    /// the history entry, which names every field the write changes from them.
    var overwritten: [RecordKey: [FieldValue]] = [:]
    /// During a save: objects a merge policy made new again (the store had deleted
    /// them). Unlike a true insert they are in the registry, so the save must not free
    /// them without taking them out of it.
    var revived: Set<RecordKey> = []

    /// Judges every fetch on managed objects, never compiled (tests compare the two).
    var interpretsFetches = false
    /// Reads compiled fetches' key paths through to-one relationships (one per context:
    /// a context runs one fetch at a time, on its own thread), made by the first fetch
    /// that has such a path: most contexts never need one.
    var toOneReader: ToOneReader {
        if let made = madeToOneReader { return made }
        let made = ToOneReader(context: self)
        madeToOneReader = made
        return made
    }
    /// The reader, if a fetch of this context has made it.
    private(set) var madeToOneReader: ToOneReader?
    /// How many managed objects this context has made: tests check that paths which
    /// promise none (counts, id lists, dictionary results) make none.
    @exclusivity(unchecked) var objectsMade = 0

    /// A registry entry. Neither strong nor weak: a `ManagedObject` removes its entry in
    /// its `deinit`, so every entry names a live object. A weak reference would give
    /// each object a side table, and with it slow-path reference counting on every
    /// retain and release of the object and an allocation per object, and would leave
    /// an empty entry per object gone, which sweeps would have to clear.
    struct RegisteredObject {
        /// Unretained: the object leaves the registry in its `deinit`. Its address is
        /// also its identity, compared without loading the reference.
        let reference: Unmanaged<ManagedObject>

        init(_ object: ManagedObject) {
            reference = Unmanaged.passUnretained(object)
        }

        /// Whether this entry names `object`.
        func names(_ object: ManagedObject) -> Bool {
            reference.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
        }

        /// The object (optional, as a weak reference's was, for the callers' sake).
        var object: ManagedObject? { reference.takeUnretainedValue() }
    }

    /// The object this context holds for `key`: registered, or inserted and not yet
    /// saved (which only `changed` holds).
    func held(_ key: RecordKey) -> ManagedObject? {
        if let registered = registry[key]?.object { return registered }
        return changed.isEmpty ? nil : changed[key]
    }

    /// Registers an object handed out under its key.
    func register(_ object: ManagedObject, key: RecordKey) {
        registry[key] = RegisteredObject(object)
    }

    /// Takes a departing object's entry out of the registry (its `deinit` calls this);
    /// an entry that names another object for the key (registered after a reset, or
    /// after this one was deleted and saved) stays.
    func forget(_ object: ManagedObject) {
        let key = object.recordKey
        registry.remove(key, ifNaming: object)
    }

    /// What the context's objects reach it through (``ManagedObject/context``): an
    /// unretained reference, cut in `deinit` before anything else goes, so an object
    /// that outlives its context reads nil, as through a weak reference.
    final class Link {
        private let target: Unmanaged<ObjectContext>
        fileprivate var isAlive = true
        /// The store's identifier, for the objects' ids: kept here, not in each object.
        let storeIdentifier: String

        init(_ context: ObjectContext) {
            target = Unmanaged.passUnretained(context)
            storeIdentifier = context.store.identifier
        }

        var context: ObjectContext? { isAlive ? target.takeUnretainedValue() : nil }

        /// Takes a departing object out of its context's registry, if the context is
        /// still there, without retaining the context (a retain and a release per
        /// object freed, each an atomic operation on the context's count).
        func forget(_ object: ManagedObject) {
            guard isAlive else { return }
            target._withUnsafeGuaranteedRef { $0.forget(object) }
        }
    }

    /// Shared by every object of this context.
    private(set) lazy var link = Link(self)

    deinit {
        // First: objects released below (`changed`, `rowCache`) must not reach back.
        link.isAlive = false
    }

    /// Each entity's shape, by name and by key tag (the store schema's, kept once).
    let shapes: [String: StoreSchema.EntityShape]
    /// The shape the last `insert` named: a run of inserts of one entity compares its
    /// name instead of hashing it for the dictionary on every insert.
    @exclusivity(unchecked) private var lastInserted: (name: String, shape: StoreSchema.EntityShape)?
    let shapeByTag: [UInt16: StoreSchema.EntityShape]
    /// `shapeByTag` as an array indexed by tag, when the tags are small (they are
    /// handed out from 1): a fault finds its entity without hashing the tag.
    private let shapeAtTag: [StoreSchema.EntityShape?]

    init(store: ObjectStore) {
        self.store = store
        shapes = store.schema.shapes
        shapeByTag = store.schema.entityByTag.compactMapValues { [shapes] in shapes[$0] }
        let maxTag = Int(shapeByTag.keys.max() ?? 0)
        var shapeAtTag = [StoreSchema.EntityShape?](repeating: nil, count: maxTag < 4096 ? maxTag + 1 : 0)
        for (tag, shape) in shapeByTag where Int(tag) < shapeAtTag.count { shapeAtTag[Int(tag)] = shape }
        self.shapeAtTag = shapeAtTag
    }

    /// The shape of the entity whose objects have keys tagged `tag`.
    func shape(tag: UInt16) -> StoreSchema.EntityShape? {
        Int(tag) < shapeAtTag.count ? shapeAtTag[Int(tag)] : shapeByTag[tag]
    }

    /// An object record read in place, decoded into its entity's current layout (a
    /// record of an older layout read forward by its shape's plan). The shape is this
    /// context's: reaching `store.schema` copied the struct.
    func decodeStored(_ view: RecordView) throws -> StoredObject {
        try StoreSchema.decode(view, shape: shape(tag: StoreSchema.tag(of: view.key)))
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
    public var registeredObjects: [ManagedObject] {
        registry.values.compactMap(\.object) + changed.values.filter { $0.isNew && registry[$0.recordKey] == nil }
    }

    // MARK: Objects

    /// Inserts a new object of `entityName`, with the model's default values.
    ///
    /// - Throws: `.unknownKeyPath` for an entity the model lacks; `.invalidArgument`
    ///   for an abstract entity.
    public func insert(_ entityName: String) throws -> ManagedObject {
        // The shapes this context keeps: `store.model` and `store.schema` are structs,
        // and reaching into them copied (and retained) them on every insert.
        let shape: StoreSchema.EntityShape
        if let last = lastInserted, last.name == entityName {
            shape = last.shape
        } else {
            guard let found = shapes[entityName] else {
                throw StrataError(.unknownKeyPath, "the model has no entity '\(entityName)'", context: ["entity": entityName])
            }
            shape = found
            lastInserted = (entityName, found)
        }
        guard !shape.isAbstract else {
            throw StrataError(.invalidArgument, "\(entityName) is abstract: insert one of its sub-entities (\(shape.entity.allSubentityNames.joined(separator: ", ")))", context: ["entity": entityName])
        }
        let key = try store.allocateKey(tag: shape.layout.tag)
        let object = ManagedObject(key: key, shape: shape, context: self)
        objectsMade &+= 1
        object.isNew = true
        for (number, value) in shape.insertDefaults { object.changes[number] = value }
        // Held by `changed` until saved, and only then registered (if its caller still
        // holds it): an insert of a million objects saved and dropped never touches the
        // registry.
        track(object)
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
        // A changed object the registry lacks (an unsaved insert) is the answer, as in
        // `held`; otherwise one probe of the registry both finds the object and, when
        // there is none, places a new fault: asking and then registering walked the
        // same run twice.
        if !changed.isEmpty, registry[key] == nil, let inserted = changed[key] { return inserted }
        return try registry.object(for: key) {
            guard let shape = shape(tag: StoreSchema.tag(of: key)) else {
                throw StrataError(.objectNotFound, "no entity of this model has key \(key)", context: ["key": "\(key.rawValue)"])
            }
            objectsMade &+= 1
            return ManagedObject(key: key, shape: shape, context: self)
        }
    }

    /// Refuses a stored to-one reference that cannot name a destination of
    /// `relationship`: a key of another entity's range, or serial 0 (an entity's
    /// counter record). Such a field is damage, and reading it as an object would
    /// answer wrong; a reference to an object that is gone is the fault's to report.
    func checkReference(_ key: RecordKey, of relationship: RelationshipDescription, in object: ManagedObject) throws {
        let serial = key.rawValue & ObjectID.serialMask
        let tag = StoreSchema.tag(of: key)
        if serial != 0, let destination = shapes[relationship.destinationEntityName], destination.layout.kindTags.contains(tag) { return }
        throw StrataError(.corrupt, "\(object.objectID).\(relationship.name) holds key \(key.rawValue), which is no \(relationship.destinationEntityName)",
                          context: ["entity": object.entity.name, "keyPath": relationship.name, "key": "\(key.rawValue)"])
    }

    /// Loads a fault's record, and those of up to a batch of its fetch siblings.
    func fireFault(_ object: ManagedObject) throws {
        let key = object.recordKey
        // An empty cache is not asked: asking hashes the key.
        if !rowCache.isEmpty, let cached = rowCache.removeValue(forKey: key) {
            object.stored = cached
            return
        }
        // Records are decoded where they lie in their blocks (`withRecord`,
        // `visitRecords`): `get` copied each record's value, terms and blob list out
        // first, three allocations per fault for bytes decoded once.
        if let group = object.faultGroup {
            // The faults of the batch, each looked up once: the registry was asked
            // again for every record read (a probe of a table as large as the fetch).
            // A request's own batch size is kept exactly, as Core Data's
            // `fetchBatchSize` is; the store's default reads ahead on a walk in order.
            let batch = group.batchSize > 0 ? group.batch(of: object, size: group.batchSize)
                : group.batch(of: object, size: store.options.faultBatchSize, readingAhead: true)
            // Unretained: a registered object is alive (it leaves the registry as it
            // goes), and nothing here lets one go. Retaining and releasing each sibling
            // twice would touch each object's own cache line twice more.
            var keys: [LocatedKey] = [], faults: [Unmanaged<ManagedObject>] = []
            keys.reserveCapacity(batch.count)
            faults.reserveCapacity(batch.count)
            for located in batch {
                if located.key == key {
                    keys.append(located)
                    faults.append(Unmanaged.passUnretained(object))
                    continue
                }
                guard let registered = registry[located.key],
                      registered.reference._withUnsafeGuaranteedRef({ $0.isFault }) else { continue }
                keys.append(located)
                faults.append(registered.reference)
            }
            func load(_ position: Int, _ view: RecordView) throws -> Bool {
                try faults[position]._withUnsafeGuaranteedRef { fault in
                    if fault.stored == nil { fault.stored = try decodeStored(view) }
                }
                return true
            }
            // Where the fetch listed them, while no commit has moved a version since.
            if let listedAt = group.listedAt, listedAt == store.records.lastSequence {
                try store.records.visitRecords(located: keys, load)
            } else {
                try store.records.visitRecords(keys.map(\.key), load)
            }
        } else {
            _ = try store.records.withRecord(key) { object.stored = try decodeStored($0) }
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
        // Setting several values of one object would hash its key into `changed` each
        // time; the stamp says it is there already.
        if object.changedStamp != changedGeneration { track(object) }
    }

    /// Puts `object` among the changed ones and stamps it with the generation that
    /// follows: until `changed` next changes, the stamp proves it is there.
    func track(_ object: ManagedObject) {
        changed[object.recordKey] = object
        object.changedStamp = changedGeneration
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
                registry[object.recordKey] = nil
            } else {
                object.isDeleted = false
            }
        }
        changed.removeAll()
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
        rowCache[object.recordKey] = nil
        if !mergeChanges {
            object.changes.removeAll()
            object.transientValues = [:]
            object.isDeleted = false
            changed[object.recordKey] = nil
            for tag in Array(edgeChanges.keys) { edgeChanges[tag]?.forget(object.recordKey) }
        }
    }

    /// Refreshes every registered object.
    public func refreshAllObjects() {
        for object in registeredObjects { refresh(object, mergeChanges: true) }
    }

    /// Forgets every object and change, as a new context.
    public func reset() {
        for object in changed.values where object.isNew { object.isDeleted = true }
        registry.removeAll()
        changed.removeAll()
        rowCache = [:]
        edgeChanges = [:]
    }
}
