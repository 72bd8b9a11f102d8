import StrataLog

extension ObjectStore {
    /// Deletes every object of an entity (and its sub-entities) that matches a
    /// predicate, in one transaction of tombstones, without managed objects (Core
    /// Data's `NSBatchDeleteRequest`). A nil predicate deletes them all.
    ///
    /// What happens to relationships:
    /// - Delete rules are not run: no cascade, no deny check, as with
    ///   `NSBatchDeleteRequest`. Delete destinations yourself, or use a context.
    /// - To-many relationships derived from a to-one inverse (`department.employees`)
    ///   stop listing the deleted objects by themselves: the tombstones drop their
    ///   index terms.
    /// - To-one references to a deleted object, from any entity (with or without an
    ///   inverse), are found through their index and cleared in the same transaction,
    ///   so no object is left pointing at a tombstone. A required to-one cleared this
    ///   way fails validation at that object's next save.
    /// - Every edge of a deleted object (its memberships in ordered, many-to-many and
    ///   inverse-less to-manys, on either side) is tombstoned in the same transaction,
    ///   found through the edges' index: no to-many lists a deleted object afterwards,
    ///   with or without an inverse.
    /// - Stored lists from before edges (docs/FORMAT.md §11.3) that are the inverse of
    ///   a relationship of the deleted object lose the deleted key. Such lists with no
    ///   inverse cannot be found without a scan and keep the key; reading the to-many
    ///   skips it.
    ///
    /// Contexts holding the deleted or rewritten objects learn of it from ``changes()``
    /// (deleted and updated ids); their own saves of rewritten objects then meet
    /// optimistic locking as after any other save.
    ///
    /// ```swift
    /// let removed = try store.batchDelete(entityName: "Employee", predicate: try Predicate(format: "salary < 1000"))
    /// ```
    ///
    /// - Returns: how many objects were deleted.
    /// - Throws: as a fetch of the same predicate (`.unknownKeyPath` …); storage errors.
    @discardableResult
    public func batchDelete(entityName: String, predicate: Predicate? = nil) throws -> Int {
        // Referrers are read, edited and rewritten: no save may commit in between (the
        // gate `save()` takes), or its update of a referrer would be lost.
        return try withSaveGate {
            // A private context only lists the keys: it evaluates key paths and uses indexes
            // exactly as a fetch does, and keeps no object once done.
            let context = newContext()
            let keys = try context.execute(FetchRequest(entityName: entityName, predicate: predicate), keepObjects: false).keys
            guard !keys.isEmpty else { return 0 }
            let deleted = Set(keys)

            var batch = WriteBatch()
            for key in keys { batch.delete(key) }
            // Deleting an entity's newest objects must not let their ids be given out again.
            putSerialCounters(Set(keys.map(StoreSchema.tag(of:))), into: &batch)
            var edgeEnds = Set<RecordKey>()
            for key in try edgeKeys(of: deleted, ends: &edgeEnds) { batch.delete(key) }
            let rewritten = try referenceRewrites(deleted: deleted)
            for (key, object) in rewritten.sorted(by: { $0.key < $1.key }) {
                guard let name = schema.entityName(of: key), let layout = schema.shapes[name]?.layout else { continue }
                let (value, blobs, terms) = try ObjectCodec.encode(object.fields, layout: layout, blobBytes: { try records.readBlob($0) })
                batch.put(key, value: value, blobs: blobs, terms: terms)
            }
            if tracksHistory {
                // Read through a context made afresh every 256 objects: one context would
                // keep every object it faulted in.
                var reader = newContext()
                let tombstones = try keys.enumerated().map { i, key in
                    if i % 256 == 255 { reader = newContext() }
                    return (key, try preservedValues(of: key, in: reader))
                }
                putHistory(updated: Array(Set(rewritten.keys).union(edgeEnds).subtracting(deleted)), deleted: tombstones, into: &batch)
            }
            let sequence = try records.commit(batch)
            if hasObservers {
                publish(ChangeSet(sequence: sequence,
                                  updated: Set(rewritten.keys.compactMap(objectID(for:))).union(edgeEnds.subtracting(deleted).compactMap(objectID(for:))),
                                  deleted: Set(keys.compactMap(objectID(for:)))))
            }
            if tracksHistory { commitSignal.signal() }
            return keys.count
        }
    }

    /// The edges of the deleted objects, on every side of every edge relation their
    /// entities take part in, read from the edges' index; `ends` collects the objects
    /// at their other ends.
    private func edgeKeys(of deleted: Set<RecordKey>, ends: inout Set<RecordKey>) throws -> [RecordKey] {
        var keys: [RecordKey] = []
        var seen = Set<RecordKey>()
        var sidesByTag: [UInt16: [EdgeSide]] = [:]
        for key in deleted.sorted() {
            let tag = StoreSchema.tag(of: key)
            if sidesByTag[tag] == nil {
                sidesByTag[tag] = schema.entityName(of: key).flatMap { model.entity(named: $0) }.map(edgeSides(ofEntity:)) ?? []
            }
            for side in sidesByTag[tag] ?? [] {
                try forEachEdgePage(of: key, side: side) { page in
                    for entry in page where seen.insert(entry.key).inserted {
                        keys.append(entry.key)
                        ends.insert(entry.destination)
                    }
                    return true
                }
            }
        }
        return keys
    }

    /// The surviving records that point at a deleted object, with those pointers
    /// removed: to-one fields (found through their term index) and stored inverse lists.
    private func referenceRewrites(deleted: Set<RecordKey>) throws -> [RecordKey: StoredObject] {
        var edits: [RecordKey: StoredObject] = [:]
        func edit(_ key: RecordKey, _ change: (inout [FieldValue], StoreSchema.EntityLayout) -> Void) throws {
            guard !deleted.contains(key), let name = schema.entityName(of: key), let layout = schema.shapes[name]?.layout else { return }
            if edits[key] == nil {
                guard let record = try records.get(key) else { return }
                var object = try schema.decode(record)
                if object.fields.count < layout.fields.count {
                    object.fields += Array(repeating: FieldValue.null, count: layout.fields.count - object.fields.count)
                }
                edits[key] = object
            }
            guard var object = edits[key] else { return }
            change(&object.fields, layout)
            edits[key] = object
        }

        let deletedTags = Set(deleted.map(StoreSchema.tag(of:)))
        let deletedEntities = deletedTags.compactMap { schema.entityByTag[$0] }.compactMap { model.entity(named: $0) }

        // To-one fields anywhere in the model that may point at a deleted object.
        var toOneIndexes: [UInt32: String] = [:]
        for entity in model.entities {
            for relationship in entity.relationships where !relationship.isToMany
                && deletedEntities.contains(where: { $0.isKind(of: relationship.destinationEntityName) }) {
                guard let layout = schema.shapes[entity.name]?.layout, let number = layout.fieldNumbers[relationship.name],
                      let index = layout.fields[number].termIndex else { continue }
                toOneIndexes[index] = relationship.name
            }
        }
        for (index, name) in toOneIndexes.sorted(by: { $0.key < $1.key }) {
            for key in deleted.sorted() {
                for referrer in try records.keys(for: IndexTerm(index: index, value: ObjectCodec.bigEndian(key.rawValue))) {
                    try edit(referrer) { fields, layout in
                        guard let number = layout.fieldNumbers[name], fields[number] == .reference(key) else { return }
                        fields[number] = .null
                    }
                }
            }
        }

        // Stored lists that are the inverse of a deleted object's relationship.
        let listInverses = deletedEntities.contains { entity in
            entity.relationships.contains { relationship in
                guard let inverseName = relationship.inverseName,
                      let inverse = model.entity(named: relationship.destinationEntityName)?.relationshipsByName[inverseName] else { return false }
                return StoreSchema.isStoredList(inverse, model: model)
            }
        }
        guard listInverses, schema.mayHaveLegacyLists else { return edits }
        let deletedRecords = try records.get(deleted.sorted())
        for record in deletedRecords.compactMap({ $0 }) {
            guard let name = schema.entityName(of: record.key), let entity = model.entity(named: name), let layout = schema.shapes[name]?.layout else { continue }
            let object = try schema.decode(record)
            for relationship in entity.relationships {
                guard let inverseName = relationship.inverseName,
                      let inverse = model.entity(named: relationship.destinationEntityName)?.relationshipsByName[inverseName],
                      StoreSchema.isStoredList(inverse, model: model),
                      let number = layout.fieldNumbers[relationship.name], number < object.fields.count else { continue }
                let destinations: [RecordKey] = switch object.fields[number] {
                case .reference(let key): [key]
                case .references(let keys): keys
                default: []
                }
                for destination in destinations {
                    try edit(destination) { fields, layout in
                        guard let list = layout.fieldNumbers[inverseName], case .references(let keys) = fields[list] else { return }
                        fields[list] = .references(keys.filter { $0 != record.key })
                    }
                }
            }
        }
        return edits
    }
}
