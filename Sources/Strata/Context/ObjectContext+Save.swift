import Foundation
import StrataLog

extension ObjectContext {
    /// Commits every insert, update and delete as one transaction.
    ///
    /// In order: validation (all failures of all objects reported together, nothing
    /// written), unique constraints, optimistic locking (objects changed in the store
    /// since this context read them are a conflict, resolved by `mergePolicy`), then
    /// one commit. Blobs of new external binaries are written first.
    ///
    /// ```swift
    /// do { try context.save() } catch StrataError.validationFailed { context.rollback() }
    /// ```
    ///
    /// - Throws: `.validationFailed` (context `objects` lists each failure),
    ///   `.conflict` listing the objects, `.io` / `.readOnly` from storage.
    public func save() throws {
        guard hasChanges else { return }
        // Checking (uniqueness, versions) and committing must be one step: two contexts
        // checking at once and then both committing would lose an update unseen.
        let gate = SaveGate.lock(for: store)
        gate.lock()
        defer { gate.unlock() }
        try saveLocked()
    }

    private func saveLocked() throws {
        var (writes, deletes) = pendingWrites()
        try validateForSave(writes: writes, deletes: deletes)
        try resolveConflicts(writes + deletes)
        // A merge policy may have dropped objects (store wins) or revived them.
        (writes, deletes) = pendingWrites()
        guard !writes.isEmpty || !deletes.isEmpty else { return }

        var batch = WriteBatch()
        var newTags = Set<UInt16>()
        var encoded: [(ManagedObject, [FieldValue])] = []
        for object in writes {
            let fields = try fieldsToWrite(object)
            let (value, blobs, terms) = ObjectCodec.encode(fields, layout: object.layout)
            batch.put(object.objectID.key, value: value, blobs: blobs, terms: terms)
            encoded.append((object, fields))
            if object.isNew { newTags.insert(object.layout.tag) }
        }
        for object in deletes { batch.delete(object.objectID.key) }
        // Read after every key this save writes was allocated, so each is below it.
        for tag in newTags.sorted() {
            let next = store.nextSerial(tag: tag)
            batch.put(StoreSchema.counterKey(tag: tag), value: withUnsafeBytes(of: next.littleEndian) { Array($0) })
        }
        let sequence = try store.records.commit(batch)

        var change = ChangeSet(sequence: sequence)
        let observed = store.hasObservers
        for (object, fields) in encoded {
            if observed {
                if object.isNew { change.inserted.insert(object.objectID) } else { change.updated.insert(object.objectID) }
            }
            object.stored = StoredObject(key: object.objectID.key, sequence: sequence, fields: fields)
            object.changes.removeAll()
            object.isNew = false
        }
        for object in deletes {
            if observed { change.deleted.insert(object.objectID) }
            registry[object.objectID.key] = nil
            object.stored = nil
        }
        changed = [:]
        // Published under the gate, so observers see transactions in commit order.
        if observed { store.publish(change) }
    }

    /// The objects a save writes and deletes, in key order.
    private func pendingWrites() -> (writes: [ManagedObject], deletes: [ManagedObject]) {
        // Keys sorted, not objects: sorting the objects themselves retained and released
        // each one at every move, and a ManagedObject's count is in a side table (the
        // registry holds it weakly), which makes each of those slow.
        let objects = changed.keys.sorted().compactMap { changed[$0] }
        return (objects.filter { !$0.isDeleted }, objects.filter { $0.isDeleted && !$0.isNew })
    }

    /// Validates what the save writes, and the objects it does not write whose derived
    /// to-many relationships it changes (a subject losing its last question).
    private func validateForSave(writes: [ManagedObject], deletes: [ManagedObject]) throws {
        let validator = ObjectValidator(context: self)
        var failures: [ValidationFailure] = []
        for object in writes { failures += try validator.failures(of: object) }
        for object in try affectedObjects(writes: writes, deletes: deletes) { failures += try validator.failures(of: object) }
        failures += try uniquenessFailures(writes)
        guard !failures.isEmpty else { return }
        throw StrataError(.validationFailed, "\(failures.count) validation failure(s); nothing was saved: " + failures.map(\.description).joined(separator: "; "),
                          context: ["objects": failures.map(\.description).joined(separator: "\n"), "count": "\(failures.count)"])
    }

    /// Objects outside the save whose to-many is derived from a to-one that the save
    /// changes: the old and new destinations of changed to-ones, and the destinations
    /// of deleted objects. Core Data validates them because it marks them updated;
    /// Strata does not rewrite them (the list is derived), but must still check counts.
    private func affectedObjects(writes: [ManagedObject], deletes: [ManagedObject]) throws -> [ManagedObject] {
        var keys = Set<RecordKey>()
        for object in writes + deletes {
            for relationship in object.shape.toOneRelationships {
                guard let inverse = inverse(of: relationship), inverse.isToMany,
                      !StoreSchema.isStoredList(inverse, model: store.model) else { continue }
                if let stored = object.stored, let number = object.layout.fieldNumbers[relationship.name],
                   number < stored.fields.count, case .reference(let old) = stored.fields[number] {
                    keys.insert(old)
                }
                if !object.isDeleted, case .reference(let new)? = object.changes[relationship.name] { keys.insert(new) }
            }
        }
        return try keys.sorted().compactMap { key in
            guard changed[key] == nil, store.records.contains(key) else { return nil }
            let object = try object(forKey: key)
            return object.isDeleted ? nil : object
        }
    }

    /// The object's record as it will be written: stored fields with changes applied,
    /// new external binaries at or above the threshold moved to the blob area.
    func fieldsToWrite(_ object: ManagedObject) throws -> [FieldValue] {
        // A refreshed object keeps its changes but not its record: load it, or the
        // fields it did not change would be written as null.
        try object.fire()
        var fields = object.stored?.fields ?? []
        let layout = object.layout
        if fields.count < layout.fields.count { fields += Array(repeating: .null, count: layout.fields.count - fields.count) }
        for (number, field) in layout.fields.enumerated() {
            guard let change = object.changes[number] else { continue }
            if case .attribute(_, external: true) = field.kind, case .value(.binary(let data)) = change,
               data.count >= store.options.externalStorageThreshold {
                let ref = try store.records.writeBlob([UInt8](data))
                fields[number] = .blob(ref, rawLength: UInt64(data.count))
                object.blobCache[number] = data
            } else {
                fields[number] = change
            }
        }
        return fields
    }

    private func uniquenessFailures(_ objects: [ManagedObject]) throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        var seen: [UInt32: [[UInt8]: ObjectID]] = [:]
        for object in objects {
            for attribute in object.shape.uniqueAttributes {
                guard let number = object.layout.fieldNumbers[attribute.name],
                      let index = object.layout.fields[number].termIndex,
                      let term = ObjectCodec.termValue(try object.field(attribute.name)) else { continue }
                let others = store.records.keys(for: IndexTerm(index: index, value: term)).filter { key in
                    key != object.objectID.key && !(changed[key].map { $0.isDeleted || $0.changes[attribute.name] != nil } ?? false)
                }
                if let other = others.first.flatMap(store.objectID(for:)) ?? seen[index]?[term] {
                    failures.append(ValidationFailure(object: object.objectID, property: attribute.name, rule: "unique",
                                                      message: "\(object.entity.name).\(attribute.name) must be unique; \(other) has the same value"))
                }
                seen[index, default: [:]][term] = object.objectID
            }
        }
        return failures
    }
}
