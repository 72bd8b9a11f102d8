import StrataLog

extension ObjectContext {
    /// Inserts an object under a chosen key (a migrated object keeps its old key).
    func insertForMigration(_ shape: StoreSchema.EntityShape, key: RecordKey) throws -> ManagedObject {
        let object = ManagedObject(key: key, shape: shape, context: self)
        objectsMade &+= 1
        object.isNew = true
        register(object, key: key)
        track(object)
        return object
    }

    /// Links a migrated object to the destinations of a stored to-many, in order: the
    /// edges are written with the batch. A many-to-many mapped from both sides names
    /// each pair twice; the save writes it once (an edge already there is kept).
    func addEdgesForMigration(_ object: ManagedObject, relationship: RelationshipDescription, _ keys: [RecordKey]) throws {
        guard let side = edgeSide(object, relationship), !keys.isEmpty else { return }
        var changes = edgeChanges[side.relation.tag] ?? EdgeChanges()
        for key in keys { changes.add(side.pair(object.recordKey, key)) }
        if side.isOrdered {
            if side.isOwner { changes.ownerOrders[object.recordKey] = keys } else { changes.memberOrders[object.recordKey] = keys }
        }
        edgeChanges[side.relation.tag] = changes
    }

    /// Writes every change as one transaction without validation or conflict checks:
    /// during a migration, relationships are still being built, and the validation
    /// pass checks every object once they are.
    func commitForMigration() throws {
        guard hasChanges else { return }
        var batch = WriteBatch()
        let deleted = Set(changed.values.filter { $0.isDeleted && !$0.isNew }.map(\.recordKey))
        let edges = try edgeWrites(deleted: deleted, checkEnds: false, collectTouched: false)
        var tags = edges.allocatedTags
        let records = store.records
        for object in changed.sortedByKey() {
            if object.isDeleted {
                if !object.isNew {
                    batch.delete(object.recordKey)
                    tags.insert(object.layout.tag)
                }
                continue
            }
            // Closure literals over `records`: a method reference passed per object
            // allocated a context each time.
            let fields = try fieldsToWrite(object, writeBlob: { try records.writeBlob($0) })
            let (value, blobs, terms) = try ObjectCodec.encode(fields, layout: object.layout, blobBytes: { try records.readBlob($0) })
            batch.put(object.recordKey, value: value, blobs: blobs, terms: terms)
        }
        edges.apply(to: &batch)
        // The migration writes every entity's counter once at its end
        // (`ObjectStore.commitSerialCounters`); a batch writes those it deleted from.
        store.putSerialCounters(tags, into: &batch)
        try store.records.commit(batch)
        // Objects a policy inserted (`insert`, not `insertForMigration`) are held only
        // by `changed` until saved: they stay found by key once it lets go.
        for object in changed.values where object.isNew && !object.isDeleted && registry[object.recordKey] == nil {
            register(object, key: object.recordKey)
        }
        changed.removeAll()
        edgeChanges = [:]
    }

    /// Loads the records of `keys` into their objects in one batched read, each
    /// record decoded where it lies in its block (through the block cache): `get`
    /// copies every record's value, terms and blob list out of a frame it decompresses
    /// for the call, and decoding through `schema` would copy the schema per object.
    func load(_ keys: [RecordKey]) throws -> [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(keys.count)
        try store.records.visitRecords(keys) { _, view in
            let object = try object(forKey: view.key)
            if object.stored == nil && !object.isNew { object.stored = try decodeStored(view) }
            objects.append(object)
            return true
        }
        return objects
    }

    /// How many objects the context holds right now (a migration's memory bound).
    var liveObjectCount: Int { registry.count }
}

extension ManagedObject {
    /// Copies a stored attribute from another object as it is stored — an external
    /// binary by reference, without reading its bytes. For migrations that move a
    /// value to another entity (scenario 1's photo split), across the old and new store.
    ///
    /// - Throws: `.unknownKeyPath`, `.typeMismatch` when the two attributes' types differ.
    public func takeValue(forKey key: String, from source: ManagedObject, sourceKey: String? = nil) throws {
        let from = sourceKey ?? key
        guard let target = entity.attributesByName[key] else { throw unknownKey(key) }
        guard let origin = source.entity.attributesByName[from] else { throw source.unknownKey(from) }
        guard origin.type == target.type else {
            throw StrataError(.typeMismatch, "\(source.entity.name).\(from) is \(origin.type), \(entity.name).\(key) is \(target.type)", context: ["entity": entity.name, "keyPath": key])
        }
        let field = try source.field(from)
        try requireContext().willChange(self)
        changes[key] = field
    }

    /// Whether a property holds a value, without reading an external binary's bytes.
    public func hasValue(_ key: String) throws -> Bool {
        if let relationship = entity.relationshipsByName[key] {
            if relationship.isToMany { return try count(key) > 0 }
            switch try field(key) {
            case .null: return false
            case .references(let keys): return !keys.isEmpty
            default: return true
            }
        }
        guard entity.attributesByName[key] != nil else { throw unknownKey(key) }
        if case .null = try field(key) { return false }
        return true
    }
}
