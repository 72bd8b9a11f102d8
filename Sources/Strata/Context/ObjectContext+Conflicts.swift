import StrataLog

extension ObjectContext {
    /// Optimistic locking: an object whose stored version is not the one this context
    /// read is a conflict, settled by `mergePolicy` as Core Data's policies settle it.
    ///
    /// - Returns: whether there were conflicts (and the policy may have changed what
    ///   the save writes).
    @discardableResult
    func resolveConflicts(_ writes: [ManagedObject], _ deletes: [ManagedObject]) throws -> Bool {
        var conflicts: [ManagedObject] = []
        // The two lists walked in turn, not joined: `writes + deletes` would retain (and
        // later release) every object of the save, one cold cache line each.
        for objects in [writes, deletes] {
            for object in objects where !object.isNew {
                guard let read = object.stored?.sequence else { continue }
                if try store.records.sequence(of: object.recordKey) != read { conflicts.append(object) }
            }
        }
        guard !conflicts.isEmpty else { return false }
        switch mergePolicy {
        case .error:
            let names = conflicts.map(\.objectID.description)
            throw StrataError(.conflict, "\(conflicts.count) object(s) changed in the store since this context read them: \(names.joined(separator: ", "))",
                              context: ["objects": names.joined(separator: ",")])
        case .contextWins:
            // Core Data's overwrite policy: the object as this context has it — the
            // values it read plus its changes — replaces the store's version whole.
            // Its base stays the version it read; the store's is kept for the history
            // entry. Deleted in the store, the object is re-created from what it read.
            for object in conflicts {
                let current = try store.records.get(object.recordKey).map(schema.decode)
                overwritten[object.recordKey] = current?.fields ?? []
                if current == nil, !object.isDeleted { try recreate(object) }
            }
        case .storeWins:
            // Core Data's rollback policy: this context's changes to these objects go.
            for object in conflicts {
                object.changes.removeAll()
                object.isDeleted = false
                changed[object.recordKey] = nil
                object.stored = try store.records.get(object.recordKey).map(schema.decode)
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
        return true
    }

    /// Makes an object the store deleted a new one holding every value this context read
    /// and its changes, which the save writes whole (the overwrite policy's answer).
    /// External binaries are carried as bytes: the deleted record's blobs are garbage
    /// to compaction from its delete on.
    private func recreate(_ object: ManagedObject) throws {
        guard object.loadedFieldNumbers == nil, let read = object.stored else {
            throw StrataError(.conflict, "\(object.objectID) was deleted in the store, and this context did not read all its values to write it again",
                              context: ["objects": object.objectID.description])
        }
        let fields = object.layout.fields
        for (number, field) in read.fields.enumerated() where number < fields.count && object.changes[number] == nil {
            if case .blob = field {
                do {
                    object.changes[number] = .value(try object.value(forKey: fields[number].name))
                } catch {
                    // A compaction since the delete may have collected the blob.
                    throw StrataError(.conflict, "\(object.objectID) was deleted in the store, and its \(fields[number].name) can no longer be read to write it again: \(error)",
                                      context: ["objects": object.objectID.description])
                }
            } else {
                object.changes[number] = field
            }
        }
        object.stored = nil
        object.isNew = true
        revived.insert(object.recordKey)
    }

    /// Replaces an object's base record with the store's newest, keeping its changes.
    private func reloadBase(_ object: ManagedObject) throws {
        guard let record = try store.records.get(object.recordKey) else {
            object.stored = nil
            if !object.isDeleted { // deleted in the store: writing re-creates it
                object.isNew = true
                revived.insert(object.recordKey)
            }
            return
        }
        object.stored = try schema.decode(record)
    }
}
