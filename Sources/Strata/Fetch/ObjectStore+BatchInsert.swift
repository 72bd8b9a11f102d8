import Foundation
import StrataLog

extension ObjectStore {
    /// Inserts many objects of one entity from value dictionaries in one transaction,
    /// without managed objects or a context (Core Data's `NSBatchInsertRequest`).
    ///
    /// Each dictionary maps attribute names to values. Values are checked against the
    /// model (type, required, min/max, length, pattern, unique — within the batch and
    /// against the store); defaults fill missing attributes; external-storage binaries
    /// at or above ``StoreOptions/externalStorageThreshold`` go to the blob area.
    ///
    /// To-one relationships are given in `relationships`, one dictionary per object
    /// (same order; empty for none), relationship name to destination id. To-one
    /// relationships whose inverse is a derived to-many (or that have no inverse) are
    /// read from this side, so nothing else is written; one whose inverse is an ordered
    /// to-many also writes one edge per object, appended at the end of the
    /// destination's order (docs/FORMAT.md §11). A to-one with a to-one inverse would
    /// need an old partner unlinked; set those through a context.
    ///
    /// Contexts that hold objects of the store learn of the insert from
    /// ``changes()``, as from any save.
    ///
    /// ```swift
    /// let ids = try store.batchInsert(entityName: "Employee", objects: [
    ///     ["name": .string("Ada"), "salary": .double(90_000)],
    ///     ["name": .string("Grace")],                         // salary: its default
    /// ], relationships: [["department": sales.objectID], [:]])
    /// ```
    ///
    /// - Returns: the new objects' ids, in the order of `objects`.
    /// - Throws: nothing is written when any object fails. `.unknownKeyPath` for an
    ///   unknown entity or key, `.typeMismatch` for a value of the wrong type or a
    ///   destination of the wrong entity, `.validationFailed` for a missing required
    ///   value or a broken rule, `.uniquenessViolation` for a duplicate of a unique
    ///   attribute or compound constraint (context also `properties`, `value`,
    ///   `objects`), `.invalidArgument`
    ///   for an abstract entity, a relationship that cannot be set here, or a
    ///   destination that is not in the store. The error's `context` holds `entity`,
    ///   `keyPath` and `index` (the position in `objects`).
    @discardableResult
    public func batchInsert(entityName: String, objects: [[String: Value]], relationships: [[String: ObjectID]] = []) throws -> [ObjectID] {
        let entity = try batchInsertable(entityName)
        guard relationships.isEmpty || relationships.count == objects.count else {
            throw StrataError(.invalidArgument, "batch insert of \(entityName): \(relationships.count) relationship dictionaries for \(objects.count) objects",
                              context: ["entity": entityName])
        }
        guard !objects.isEmpty else { return [] }
        // Unique checks read the store: they and the commit must not be overtaken by
        // a context's save (the same gate `save()` takes).
        return try withSaveGate {
            let shape = try schema.shape(entityName)
            let layout = shape.layout
            let checker = BatchInsertChecker(store: self, entity: entity, layout: layout)

            let inverses = edgeInverses(of: entity, layout: layout)
            // Without external binaries (written to the blob area only once every object
            // is valid) or edges to derive, each object is encoded as soon as it is
            // checked, from one fields buffer: no fields array is kept per object.
            let encodesAsChecked = inverses.isEmpty && !shape.isExternalField.contains(true)
            var rows: [[FieldValue]] = []
            var encoded: [(value: [UInt8], blobs: [BlobRef], terms: [IndexTerm])] = []
            if encodesAsChecked { encoded.reserveCapacity(objects.count) } else { rows.reserveCapacity(objects.count) }
            var fields: [FieldValue] = []
            for (index, values) in objects.enumerated() {
                try checker.fill(&fields, values, index: index)
                if !relationships.isEmpty { try checker.apply(relationships[index], to: &fields, index: index) }
                try checker.checkRequiredRelationships(fields, index: index)
                if encodesAsChecked {
                    encoded.append(try ObjectCodec.encode(fields, layout: layout, blobBytes: { try records.readBlob($0) }))
                } else {
                    rows.append(fields)
                }
            }

            // Everything is valid: allocate ids, move large binaries out, write once.
            var batch = WriteBatch()
            var ids: [ObjectID] = []
            ids.reserveCapacity(objects.count)
            let keys = try allocateKeys(tag: layout.tag, count: objects.count)
            if !encodesAsChecked {
                for var fields in rows {
                    try externalize(&fields, isExternal: shape.isExternalField, writeBlob: { try records.writeBlob($0) })
                    encoded.append(try ObjectCodec.encode(fields, layout: layout, blobBytes: { try records.readBlob($0) }))
                }
            }
            for ((value, blobs, terms), key) in zip(encoded, keys) {
                batch.put(key, value: value, blobs: blobs, terms: terms)
                ids.append(ObjectID(entityName: entityName, key: key, storeIdentifier: identifier))
            }
            encoded = []
            var tags = Set<UInt16>()
            for (relationship, number) in inverses {
                let linked = zip(rows, keys).compactMap { fields, key -> (RecordKey, RecordKey)? in
                    guard case .reference(let owner) = fields[number] else { return nil }
                    return (owner, key)
                }
                guard !linked.isEmpty else { continue }
                let edgeKeys = try allocateKeys(tag: relationship.tag, count: linked.count)
                for ((owner, member), key) in zip(linked, edgeKeys) {
                    let position = ObjectContext.appendPosition(key)
                    let edge = EdgeCodec.Edge(owner: owner, member: member, ownerPosition: relationship.ownerOrdered ? position : 0,
                                              memberPosition: relationship.memberOrdered ? position : 0)
                    let (value, terms) = EdgeCodec.encode(edge, relation: relationship)
                    batch.put(key, value: value, terms: terms)
                }
                tags.insert(relationship.tag)
            }
            // Only the edge tags' counters: the entity's new keys are all in the store, and
            // open takes its next serial from the last of them (`loadSerials`).
            putSerialCounters(tags, into: &batch)
            if tracksHistory {
                // Owners whose ordered to-many gained members are updated, as a save has them.
                let owners = inverses.flatMap { _, number in rows.compactMap { fields -> RecordKey? in
                    if case .reference(let owner) = fields[number] { return owner }
                    return nil
                } }
                var inserted = InsertedKeys(tracking: true)
                for id in ids { inserted.append(id.key) }
                putHistory(inserted: inserted.runs, updated: owners, into: &batch)
            }
            let sequence = try records.commit(batch)
            if hasObservers { publish(ChangeSet(sequence: sequence, inserted: Set(ids))) }
            if tracksHistory { commitSignal.signal() }
            return ids
        }
    }

    /// Inserts objects of one entity that `dictionaryHandler` produces one at a time,
    /// in one transaction, holding at most ``StoreOptions/insertChunkSize`` of them at once whatever their number
    /// (Core Data's `NSBatchInsertRequest(entityName:dictionaryHandler:)`).
    ///
    /// The handler fills the dictionary it is given (emptied before each call) with the
    /// next object's attribute values and returns `false`, or returns `true` when there
    /// are no more objects — the dictionary of that last call is not inserted. Values
    /// are checked as ``batchInsert(entityName:objects:relationships:)`` checks them,
    /// external-storage binaries go to the blob area, and the objects are encoded and
    /// written as they come: the records reach the segment in chunks, their index is
    /// sorted through scratch files, and the transaction becomes visible whole when the
    /// handler is done (`LogStore.commit(chunks:)`). Memory stays flat from a thousand
    /// objects to millions, except for a unique attribute, whose values in the batch
    /// are remembered to find duplicates among them (as the array form does).
    ///
    /// Relationships are not set here; an entity with a required to-one cannot be
    /// inserted this way. Contexts observing the store learn of the insert from
    /// ``changes()`` with every new id (which the store then gathers).
    ///
    /// ```swift
    /// var next = 0
    /// let inserted = try store.batchInsert(entityName: "Employee") { values in
    ///     guard next < rows.count else { return true }
    ///     values["name"] = .string(rows[next].name)
    ///     values["salary"] = .int(rows[next].salary)
    ///     next += 1
    ///     return false
    /// }
    /// ```
    ///
    /// - Returns: how many objects were inserted.
    /// - Throws: as ``batchInsert(entityName:objects:relationships:)`` (the error's
    ///   `index` counts the handler's objects from 0), or what the handler throws.
    ///   Nothing becomes visible when any object or the handler fails (binaries
    ///   already written to the blob area are garbage that compaction reclaims).
    @discardableResult
    public func batchInsert(entityName: String, dictionaryHandler: (inout [String: Value]) throws -> Bool) throws -> Int {
        let entity = try batchInsertable(entityName)
        return try withSaveGate {
            let shape = try schema.shape(entityName)
            let layout = shape.layout
            let checker = BatchInsertChecker(store: self, entity: entity, layout: layout)
            let observed = hasObservers
            // History names every object inserted, in runs of keys.
            var inserted = InsertedKeys(tracking: tracksHistory)
            var ids: [ObjectID] = []
            var values: [String: Value] = [:]
            var fields: [FieldValue] = []
            var count = 0
            var done = false
            // An insert of up to a chunk is one ordinary commit: a chunked one seals a
            // segment of its own (several more fsyncs). The chunks after the first are
            // smaller (`insertHandOverSize`).
            var chunkObjects = max(1, options.insertChunkSize)
            // Whether `values` holds an object the last chunk had no room for. A chunk
            // asks the handler for one object more than it takes, so that an insert of
            // exactly a chunk is known to be done, and is one ordinary commit.
            var carried = false
            // Asked once for the insert, not per object.
            let isExternal = shape.isExternalField
            let anyExternal = isExternal.contains(true)
            let checksRelationships = checker.hasRequiredRelationships
            var keys = KeyRun()
            defer { giveBack(keys, tag: layout.tag) }
            // The first chunk's objects are encoded on a second thread as they are checked,
            // unless a binary may go to the blob area (written under the commit's lock, on
            // this thread). The chunks after it are encoded here: the chunked commit writes
            // each one on a second thread while the next is made, and a third thread
            // would only compete with those two for two cores.
            var encoder = anyExternal ? nil : BatchInsertEncoder(store: self, layout: layout, entityName: entityName, observed: observed)
            var run: [[FieldValue]] = []
            var spares: [[FieldValue]] = []
            let sequence = try records.commit { batch, writeBlob in
                defer { chunkObjects = options.insertHandOverSize }
                var inChunk = 0
                defer {
                    // Its keys and ids carry on into the chunks after it.
                    if let encoder {
                        keys = encoder.keys
                        ids = encoder.ids
                        inserted = encoder.inserted
                    }
                    encoder = nil
                }
                do {
                    while true {
                        if !carried {
                            values.removeAll(keepingCapacity: true)
                            if try dictionaryHandler(&values) {
                                done = true
                                break
                            }
                        }
                        carried = inChunk == chunkObjects
                        if carried { break }
                        try checker.fill(&fields, values, index: count)
                        if checksRelationships { try checker.checkRequiredRelationships(fields, index: count) }
                        if let encoder {
                            // Handed over whole: the next object's fields go in an array
                            // the encoder is done with, else a new one.
                            run.append(fields)
                            if spares.isEmpty { spares = encoder.spentFields() }
                            fields = spares.popLast() ?? []
                            if run.count == BatchInsertEncoder.runLength {
                                encoder.submit(run)
                                run = []
                            }
                        } else {
                            if anyExternal { try externalize(&fields, isExternal: isExternal, writeBlob: writeBlob) }
                            try putInserted(fields, layout: layout, entityName: entityName, observed: observed, keys: &keys, batch: &batch, ids: &ids,
                                            inserted: &inserted)
                        }
                        count += 1
                        inChunk += 1
                    }
                    if let encoder {
                        encoder.submit(run)
                        run = []
                        batch = try encoder.finish()
                    }
                    // A handler that yields nothing commits nothing, history or not: an entry
                    // alone would be a transaction that changed no object.
                    if done && count > 0 && tracksHistory { putHistory(inserted: (encoder?.inserted ?? inserted).runs, into: &batch) }
                } catch {
                    // Nothing may be given back or dropped under an encoding still under way.
                    encoder?.abandon()
                    throw error
                }
                return !done
            }
            if count > 0 && observed { publish(ChangeSet(sequence: sequence, inserted: Set(ids))) }
            if count > 0 && tracksHistory { commitSignal.signal() }
            return count
        }
    }

    /// The to-ones of `entity` whose inverse is an ordered to-many kept as edges, with
    /// their field numbers: batch insert writes their edges.
    private func edgeInverses(of entity: EntityDescription, layout: StoreSchema.EntityLayout) -> [(EdgeRelation, Int)] {
        entity.relationships.compactMap { relationship in
            guard !relationship.isToMany, let inverse = relationship.inverseName,
                  let side = schema.edgeSide(relationship.destinationEntityName, inverse),
                  let number = layout.fieldNumbers[relationship.name] else { return nil }
            return (side.relation, number)
        }
    }

    /// The entity `entityName` names, when batch insert may insert its objects.
    private func batchInsertable(_ entityName: String) throws -> EntityDescription {
        guard let entity = model.entity(named: entityName) else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(entityName)'", context: ["entity": entityName])
        }
        guard !entity.isAbstract else {
            throw StrataError(.invalidArgument, "\(entityName) is abstract: batch-insert one of its sub-entities", context: ["entity": entityName])
        }
        return entity
    }

    /// A checked object's last step in a batch insert from a handler, on whichever
    /// thread encodes it (this one, or `BatchInsertEncoder`'s): the next key of
    /// `keys`, its record encoded into `batch`, its id noted when observers want them.
    func putInserted(_ fields: [FieldValue], layout: StoreSchema.EntityLayout, entityName: String, observed: Bool,
                     keys: inout KeyRun, batch: inout WriteBatch, ids: inout [ObjectID], inserted: inout InsertedKeys) throws {
        let key = try allocateKey(tag: layout.tag, from: &keys)
        let (value, blobs, terms) = try ObjectCodec.encode(fields, layout: layout, blobBytes: { try records.readBlob($0) })
        batch.put(key, value: value, blobs: blobs, terms: terms)
        if observed { ids.append(ObjectID(entityName: entityName, key: key, storeIdentifier: identifier)) }
        inserted.append(key)
    }

    /// Moves external-storage binaries at or above the threshold to the blob area
    /// through `writeBlob` (the record keeps a reference), as a context's save does.
    private func externalize(_ fields: inout [FieldValue], isExternal: [Bool], writeBlob: ([UInt8]) throws -> BlobRef) throws {
        for number in isExternal.indices where isExternal[number] {
            guard case .value(.binary(let data)) = fields[number], data.count >= options.externalStorageThreshold else { continue }
            fields[number] = .blob(try writeBlob([UInt8](data)), rawLength: UInt64(data.count))
        }
    }
}
