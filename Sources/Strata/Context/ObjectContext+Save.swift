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
    /// - Throws: `.validationFailed` (context `objects` lists each failure),
    ///   `.conflict` listing the objects, `.io` / `.readOnly` from storage.
    public func save() throws {
        guard hasChanges else { return }
        let objects = changed.values.sorted { $0.objectID.key < $1.objectID.key }
        let writes = objects.filter { !$0.isDeleted }
        let deletes = objects.filter { $0.isDeleted && !$0.isNew }

        let validator = ObjectValidator(context: self)
        var failures: [ValidationFailure] = []
        for object in writes { failures += try validator.failures(of: object) }
        failures += try uniquenessFailures(writes)
        if !failures.isEmpty {
            throw StrataError(.validationFailed, "\(failures.count) validation failure(s); nothing was saved: " + failures.map(\.description).joined(separator: "; "),
                              context: ["objects": failures.map(\.description).joined(separator: "\n"), "count": "\(failures.count)"])
        }

        try resolveConflicts(writes + deletes)

        var batch = WriteBatch()
        var counters: [UInt16: UInt64] = [:]
        var encoded: [(ManagedObject, [FieldValue])] = []
        for object in writes {
            let fields = try fieldsToWrite(object)
            let (value, blobs, terms) = ObjectCodec.encode(fields, layout: object.layout)
            batch.put(object.objectID.key, value: value, blobs: blobs, terms: terms)
            encoded.append((object, fields))
            if object.isNew { counters[object.layout.tag] = store.nextSerial(tag: object.layout.tag) }
        }
        for object in deletes { batch.delete(object.objectID.key) }
        for (tag, next) in counters {
            batch.put(StoreSchema.counterKey(tag: tag), value: withUnsafeBytes(of: next.littleEndian) { Array($0) })
        }
        let sequence = try store.records.commit(batch)

        var change = ChangeSet(sequence: sequence)
        for (object, fields) in encoded {
            (object.isNew ? { change.inserted.insert(object.objectID) } : { change.updated.insert(object.objectID) })()
            object.stored = StoredObject(key: object.objectID.key, sequence: sequence, fields: fields)
            object.changes = [:]
            object.isNew = false
        }
        for object in deletes {
            change.deleted.insert(object.objectID)
            registry[object.objectID.key] = nil
            object.stored = nil
        }
        changed = [:]
        store.publish(change)
    }

    /// The object's record as it will be written: stored fields with changes applied,
    /// new external binaries at or above the threshold moved to the blob area.
    func fieldsToWrite(_ object: ManagedObject) throws -> [FieldValue] {
        var fields = object.stored?.fields ?? []
        let layout = object.layout
        if fields.count < layout.fields.count { fields += Array(repeating: .null, count: layout.fields.count - fields.count) }
        for (number, field) in layout.fields.enumerated() {
            guard let change = object.changes[field.name] else { continue }
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
            for attribute in object.entity.storedAttributes where attribute.isUnique {
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

    /// Optimistic locking: an object whose stored version is not the one this context
    /// read is a conflict, settled by `mergePolicy`.
    private func resolveConflicts(_ objects: [ManagedObject]) throws {
        var conflicts: [ManagedObject] = []
        for object in objects where !object.isNew {
            guard let read = object.stored?.sequence else { continue }
            if store.records.sequence(of: object.objectID.key) != read { conflicts.append(object) }
        }
        guard !conflicts.isEmpty else { return }
        switch mergePolicy {
        case .error:
            let names = conflicts.map(\.objectID.description)
            throw StrataError(.conflict, "\(conflicts.count) object(s) changed in the store since this context read them: \(names.joined(separator: ", "))",
                              context: ["objects": names.joined(separator: ",")])
        case .contextWins:
            for object in conflicts { try reloadBase(object) }
        case .storeWins:
            for object in conflicts {
                object.changes = [:]
                object.isDeleted = false
                changed[object.objectID.key] = nil
                try reloadBase(object)
            }
        case .propertyLevelContextTrump:
            for object in conflicts { try reloadBase(object) }
        case .propertyLevelStoreTrump:
            for object in conflicts {
                let original = object.stored
                try reloadBase(object)
                guard let original, let current = object.stored else { continue }
                for (number, field) in object.layout.fields.enumerated() where number < original.fields.count && number < current.fields.count {
                    if original.fields[number] != current.fields[number] { object.changes[field.name] = nil }
                }
            }
        }
    }

    /// Replaces an object's base record with the store's newest, keeping its changes.
    private func reloadBase(_ object: ManagedObject) throws {
        guard let record = try store.records.get(object.objectID.key) else {
            object.stored = nil
            if !object.isDeleted { object.isNew = true } // deleted in the store: writing re-creates it
            return
        }
        object.stored = try ObjectCodec.decode(record)
    }
}
