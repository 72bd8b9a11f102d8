import Foundation
import StrataLog

extension ObjectContext {
    /// Commits every insert, update and delete as one transaction.
    ///
    /// In order: validation (all failures of all objects reported together, nothing
    /// written), unique constraints, optimistic locking (objects changed in the store
    /// since this context read them are a conflict, resolved by `mergePolicy`; what the
    /// policy made of the objects is validated again), then one commit. Blobs of new
    /// external binaries are written first. A save that fails after a policy resolved
    /// conflicts keeps what the policy did to the objects (dropped changes, a base
    /// moved to the store's version, an object made new again), as Core Data's does.
    ///
    /// ```swift
    /// do { try context.save() } catch .validationFailed { context.rollback() }
    /// ```
    ///
    /// - Throws: `.validationFailed` (context `objects` lists each failure),
    ///   `.conflict` listing the objects, `.io` / `.readOnly` from storage.
    public func save() throws {
        guard hasChanges else { return }
        let started = store.instrument == nil ? nil : ContinuousClock.now
        do {
            if let pending = try saveAppending() { try store.records.waitUntilDurable(pending) }
            store.record(.save, since: started, error: nil)
        } catch {
            store.record(.save, since: started, error: error)
            throw error
        }
    }

    /// Checks, appends and marks the objects saved, leaving the commit's durability to
    /// the caller, who waits outside the save lock: saves that arrive while an fsync
    /// runs then share the next one (group commit). The commit is visible to readers
    /// of this store when this returns; nil when there was nothing to write.
    func saveAppending() throws -> PendingCommit? {
        guard hasChanges else { return nil }
        // Checking (uniqueness, versions) and committing must be one step: two contexts
        // checking at once and then both committing would lose an update unseen.
        return try store.withSaveGate { try saveLocked() }
    }

    private func saveLocked() throws -> PendingCommit? {
        var (writes, deletes) = pendingWrites()
        try validateForSave(writes: writes, deletes: deletes)
        overwritten = [:]
        revived = []
        defer {
            overwritten = [:]
            revived = []
        }
        // A merge policy may have dropped objects (store wins), revived them, or merged
        // the store's values into them: what is written now is checked again, so that
        // no rule of the model is broken by a merge (a re-created object's unique value
        // taken meanwhile, say).
        if try resolveConflicts(writes, deletes) {
            (writes, deletes) = pendingWrites()
            try validateForSave(writes: writes, deletes: deletes)
        }
        let observed = store.hasObservers
        let tracksHistory = store.tracksHistory
        let edges = try edgeWrites(deleted: Set(deletes.map(\.recordKey)), checkEnds: true, collectTouched: observed || tracksHistory)
        guard !writes.isEmpty || !deletes.isEmpty || !edges.isEmpty else {
            edgeChanges = [:]
            return nil
        }

        var counterTags = edges.allocatedTags
        // Made before the commit, from what the objects hold unsaved: the same
        // transaction carries it.
        var history = tracksHistory ? try historyEntry(writes: writes, deletes: deletes, touched: edges.touched) : nil
        // The fields written, position for position with `writes` (the objects are not
        // held a second time: see the end).
        var written: [[FieldValue]] = []
        written.reserveCapacity(writes.count)
        var next = 0
        // Blobs are read through a closure literal over this: a method reference
        // (`store.records.readBlob`) passed per object allocated a context each time.
        let records = store.records
        // The layout of the entity written last, taken from its shape once per run of
        // objects of one entity: `object.layout` copied the struct (retaining and
        // releasing its arrays and tables) for every object saved.
        var layoutShape: StoreSchema.EntityShape?
        var layout = StoreSchema.EntityLayout(name: "", tag: 0, fields: [], fieldNumbers: [:], kindTags: [])
        // Writes in chunks, then the deletes, edges and counters after the last one.
        func fill(_ batch: inout WriteBatch, upTo end: Int, writeBlob: ([UInt8]) throws -> BlobRef) throws -> Bool {
            while next < end {
                let object = writes[next]
                let fields = try fieldsToWrite(object, writeBlob: writeBlob)
                let shape = object.shape
                if shape !== layoutShape {
                    layout = shape.layout
                    layoutShape = shape
                }
                let (value, blobs, terms) = try ObjectCodec.encode(fields, layout: layout, blobBytes: { try records.readBlob($0) })
                batch.put(object.recordKey, value: value, blobs: blobs, terms: terms)
                written.append(fields)
                next += 1
            }
            if next < writes.count { return true }
            for object in deletes {
                batch.delete(object.recordKey)
                counterTags.insert(object.layout.tag)
            }
            edges.apply(to: &batch)
            store.putSerialCounters(counterTags, into: &batch)
            if let entry = history {
                history = nil
                batch.put(entry, keyedBySequenceAfter: HistoryLog.stateKey)
            }
            return false
        }
        let pending: PendingCommit
        if writes.count > max(1, store.options.insertChunkSize) {
            // A large save hands its records over in chunks (`commit(chunks:)`): the
            // engine never holds the whole transaction's records and index entries
            // beside the objects this context already holds.
            let chunk = store.options.insertHandOverSize
            pending = PendingCommit(durableSequence: try store.records.commit { batch, writeBlob in
                try fill(&batch, upTo: min(writes.count, next + chunk), writeBlob: writeBlob)
            })
        } else {
            var batch = WriteBatch()
            _ = try fill(&batch, upTo: writes.count, writeBlob: store.records.writeBlob)
            pending = try store.records.commitPending(batch)
        }
        let sequence = pending.sequence

        var change = ChangeSet(sequence: sequence)
        // From here `writes` holds the only references this context has to the objects
        // it wrote, so one that nobody else holds dies when the save lets go of it: it is
        // neither marked saved nor registered (its key reads the store, as any object's
        // that was let go). A million objects inserted, saved and dropped were each
        // registered, marked and then looked up again to leave the registry, every pass
        // over cold memory.
        changed.removeAll()
        // Inserted objects nobody holds, freed on another thread with their fields.
        var dropped: [ManagedObject] = []
        let releasesElsewhere = writes.count >= Self.releaseElsewhereMinimum
        for i in writes.indices {
            if observed {
                let object = writes[i]
                if object.isNew { change.inserted.insert(object.objectID) } else { change.updated.insert(object.objectID) }
            }
            if isKnownUniquelyReferenced(&writes[i]) {
                // Never registered (an insert is registered once saved, if held): its
                // `deinit` has nothing to take out of this context.
                if releasesElsewhere && writes[i].isNew && !revived.contains(writes[i].recordKey) {
                    writes[i].leavesQuietly = true
                    dropped.append(writes[i])
                }
                continue
            }
            let object = writes[i]
            // An inserted object is registered once saved (until then `changed` holds it).
            if object.isNew { register(object, key: object.recordKey) }
            object.stored = StoredObject(key: object.recordKey, sequence: sequence, fields: written[i])
            object.changes.removeAll()
            object.isNew = false
        }
        if !dropped.isEmpty {
            // The objects somebody holds stay; the rest go with their fields, elsewhere.
            writes = []
            Self.releaseElsewhere(&dropped, fields: &written)
        }
        for object in deletes {
            if observed { change.deleted.insert(object.objectID) }
            registry[object.recordKey] = nil
            object.stored = nil
        }
        // Both ends of a changed membership count as updated, as in Core Data, though
        // neither record is rewritten (the edge is).
        for key in edges.touched {
            guard let id = store.objectID(for: key), !change.inserted.contains(id), !change.deleted.contains(id) else { continue }
            change.updated.insert(id)
        }
        edgeChanges = [:]
        // Published under the gate, so observers see transactions in commit order.
        if observed { store.publish(change) }
        if tracksHistory { store.commitSignal.signal() }
        return pending
    }

    /// How many objects a save writes before the ones nobody holds are freed on
    /// another thread (a hand-over costs more than freeing a few).
    static let releaseElsewhereMinimum = 1_024

    /// Lets go of saved inserts nobody holds, and of the fields written, on another
    /// thread: freeing thousands of objects with their values (five allocations each)
    /// would otherwise happen before `save()` returns while the second core idles.
    /// Each object is marked to leave quietly: its `deinit` must not
    /// reach this context's registry from that thread (it was never registered).
    /// Both arrays are taken (left empty), so the last references are the other
    /// thread's.
    static func releaseElsewhere(_ objects: inout [ManagedObject], fields: inout [[FieldValue]]) {
        let released = Released()
        swap(&released.objects, &objects)
        swap(&released.fields, &fields)
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(released) {} }
    }

    /// What `releaseElsewhere` hands over: objects no other reference reaches (so no
    /// other thread touches them) and plain values.
    private final class Released: @unchecked Sendable {
        var objects: [ManagedObject] = []
        var fields: [[FieldValue]] = []
    }

    /// The objects a save writes and deletes, in key order.
    private func pendingWrites() -> (writes: [ManagedObject], deletes: [ManagedObject]) {
        let sorted = changed.sortedByKey()
        var writes: [ManagedObject] = [], deletes: [ManagedObject] = []
        writes.reserveCapacity(sorted.count)
        for object in sorted {
            if !object.isDeleted { writes.append(object) } else if !object.isNew { deletes.append(object) }
        }
        return (writes, deletes)
    }

    /// Validates what the save writes, and the objects it does not write whose derived
    /// to-many relationships it changes (a subject losing its last question).
    private func validateForSave(writes: [ManagedObject], deletes: [ManagedObject]) throws {
        let validator = ObjectValidator(context: self)
        var failures: [ValidationFailure] = []
        // Appended only when there are some: `+=` of an empty array still made the
        // list unique and ready to grow, per object saved.
        for object in writes {
            let found = try validator.failures(of: object)
            if !found.isEmpty { failures += found }
        }
        for object in try affectedObjects(writes: writes, deletes: deletes) {
            let found = try validator.failures(of: object)
            if !found.isEmpty { failures += found }
        }
        let uniqueness = try uniquenessFailures(writes)
        failures += uniqueness.map(\.validationFailure)
        guard !failures.isEmpty else { return }
        var context = ["objects": failures.map(\.description).joined(separator: "\n"), "count": "\(failures.count)"]
        // The established contract is one validationFailed listing every failure; a
        // uniqueness failure also names its rule and value as uniquenessViolation does.
        if let first = uniqueness.first {
            context["entity"] = first.constraint.entity
            context["properties"] = first.constraint.attributes.joined(separator: ",")
            context["value"] = UniqueConstraint.display(first.values, limit: .max)
            context["duplicates"] = "\(first.object)\n\(first.other)"
        }
        throw StrataError(.validationFailed, "\(failures.count) validation failure(s); nothing was saved: " + failures.map(\.description).joined(separator: "; "),
                          context: context)
    }

    /// Objects outside the save whose to-many counts the save changes: the old and
    /// new destinations of changed to-ones whose inverse is derived, the destinations
    /// of deleted objects, and the ends of changed edges whose side has a count rule.
    /// Core Data validates them because it marks them updated; Strata does not
    /// rewrite them (the list is derived, or edges), but must still check counts.
    private func affectedObjects(writes: [ManagedObject], deletes: [ManagedObject]) throws -> [ManagedObject] {
        var keys = Set<RecordKey>()
        // The two lists in turn, not joined (which retained and released every object),
        // and not at all when no entity has a to-one (a walk over every object).
        let toOnes = shapes.values.contains { !$0.toOneRelationships.isEmpty }
        for objects in toOnes ? [writes, deletes] : [] {
            for object in objects {
                for relationship in object.shape.toOneRelationships {
                    // Derived inverses only: an edge inverse's ends come from the edge changes.
                    guard let inverse = inverse(of: relationship), inverse.isToMany,
                          schema.edgeSide(relationship.destinationEntityName, inverse.name) == nil else { continue }
                    if let stored = object.stored, let number = object.layout.fieldNumbers[relationship.name],
                       number < stored.fields.count, case .reference(let old) = stored.fields[number] {
                        keys.insert(old)
                    }
                    if !object.isDeleted, case .reference(let new)? = object.changes[relationship.name] { keys.insert(new) }
                }
            }
        }
        keys.formUnion(try edgeEndsWithCountRules())
        return try keys.sorted().compactMap { key in
            guard changed[key] == nil, try store.records.contains(key) else { return nil }
            let object = try object(forKey: key)
            return object.isDeleted ? nil : object
        }
    }

    /// The ends of changed edges whose entity's side of the relation has a count rule
    /// (minimum, maximum, or required). An unconstrained side is not counted, so adding
    /// one member to a large relationship reads nothing of the others.
    private func edgeEndsWithCountRules() throws -> Set<RecordKey> {
        var keys = Set<RecordKey>()
        var constrained: [String: Bool] = [:]
        func hasRule(_ entityName: String, _ relationshipName: String?) -> Bool {
            guard let relationshipName else { return false }
            let name = "\(entityName).\(relationshipName)"
            if let known = constrained[name] { return known }
            let relationship = store.model.entity(named: entityName)?.relationshipsByName[relationshipName]
            let rule = relationship.map { $0.isToMany && ($0.minimumCount != nil || $0.maximumCount != nil || !$0.isOptional) } ?? false
            constrained[name] = rule
            return rule
        }
        for (tag, changes) in edgeChanges {
            guard let relation = schema.edgeByTag[tag] else { continue }
            for key in changes.touchedKeys {
                guard let entity = schema.entityName(of: key) else { continue }
                if hasRule(entity, relation.relationship) || hasRule(entity, relation.inverseName) { keys.insert(key) }
            }
        }
        return keys
    }

    /// The object's record as it will be written: stored fields with changes applied,
    /// new external binaries at or above the threshold moved to the blob area.
    ///
    /// - Parameter writeBlob: how blobs are written: the store's, or a chunked commit's
    ///   own (which holds the engine's writer lock).
    func fieldsToWrite(_ object: ManagedObject, writeBlob: ([UInt8]) throws -> BlobRef) throws -> [FieldValue] {
        // A refreshed object keeps its changes but not its record: load it, or the
        // fields it did not change would be written as null.
        try object.fire()
        let shape = object.shape
        guard var fields = object.stored?.fields else {
            // A new object: its record is its changes, nulls where it has none, made in
            // one pass (a null array overwritten change by change took two allocations).
            return try (0..<shape.fieldCount).map { number in
                guard let change = object.changes[number] else { return .null }
                return try written(change, number, of: object, writeBlob: writeBlob)
            }
        }
        if fields.count < shape.fieldCount { fields += repeatElement(.null, count: shape.fieldCount - fields.count) }
        for number in 0..<shape.fieldCount {
            guard let change = object.changes[number] else { continue }
            fields[number] = try written(change, number, of: object, writeBlob: writeBlob)
        }
        return fields
    }

    /// Field `number` of `object` as `change` is written: a new external binary at or
    /// above the threshold moved to the blob area, anything else as it is.
    private func written(_ change: FieldValue, _ number: Int, of object: ManagedObject, writeBlob: ([UInt8]) throws -> BlobRef) throws -> FieldValue {
        if object.shape.isExternalField[number], case .value(.binary(let data)) = change,
           data.count >= store.options.externalStorageThreshold {
            let ref = try writeBlob([UInt8](data))
            object.blobCache[number] = data
            return .blob(ref, rawLength: UInt64(data.count))
        }
        return change
    }

    /// Every uniqueness rule the saved objects break, against the store and against
    /// each other, with the model's own equality (``ObjectStore/storedDuplicates``).
    /// A stored object that this save deletes, or whose constrained values it
    /// changes, is judged by its new values (through `seen`), not its stored ones.
    private func uniquenessFailures(_ objects: [ManagedObject]) throws -> [UniquenessFailure] {
        var checks: [(object: ManagedObject, constraint: UniqueConstraint, values: [Value])] = []
        for object in objects {
            for constraint in object.shape.uniqueConstraints {
                // Null-distinct (SQL's rule): an object with a constrained value missing
                // is not checked. A stored external binary is not read to be compared.
                guard let values = try object.constrainedValues(constraint) else { continue }
                checks.append((object, constraint, values))
            }
        }
        guard !checks.isEmpty else { return [] }
        // On a server, the save's index lookups in one round trip.
        let prefetched = try store.prefetchedTerms(checks.map { ($0.values, $0.constraint) })
        var failures: [UniquenessFailure] = []
        var seen: [UInt32: [[Value]: ObjectID]] = [:]
        for (object, constraint, values) in checks {
            let stored = try store.storedDuplicates(of: values, for: constraint, prefetched: prefetched) { key in
                key == object.recordKey
                    || (changed[key].map { other in other.isDeleted || constraint.attributes.contains { other.changes[$0] != nil } } ?? false)
            }
            if let other = stored.first.flatMap(store.objectID(for:)) ?? seen[constraint.termIndex]?[values] {
                failures.append(UniquenessFailure(constraint: constraint, values: values, object: object.objectID, other: other))
            }
            seen[constraint.termIndex, default: [:]][values] = object.objectID
        }
        return failures
    }
}

extension ManagedObject {
    /// The values of a uniqueness rule's attributes, or nil when one is missing (a
    /// rule does not hold objects with a null among its values, as SQL's does not).
    func constrainedValues(_ constraint: UniqueConstraint) throws -> [Value]? {
        var values: [Value] = []
        values.reserveCapacity(constraint.attributes.count)
        for name in constraint.attributes {
            guard case .value(let value) = try field(name) else { return nil }
            values.append(value)
        }
        return values
    }
}
