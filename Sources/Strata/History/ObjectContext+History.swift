import Foundation
import StrataLog

extension ObjectContext {
    /// The history entry of a save of `writes` and `deletes` (``StoreOptions/historyTracking``):
    /// each write an insert or an update naming the fields it changed, each delete with
    /// the values its attributes marked `preserveValueOnDeletion` last held; the objects
    /// at the far end of a to-one an insert, update or delete set or cleared as updates
    /// naming the inverse to-many, and those only an edge changed (`touched`) as updates
    /// naming nothing.
    func historyEntry(writes: [ManagedObject], deletes: [ManagedObject], touched: Set<RecordKey>) throws -> [UInt8] {
        var entry = HistoryEntry(timestamp: Date(), author: transactionAuthor, contextName: name)
        // Inserts as runs of consecutive keys, as a batch insert writes them: a save of a
        // million new objects adds a few runs to what it holds, not a change per object.
        var inserted = InsertedKeys(tracking: true)
        // Objects at the far end of a to-one a write moved, with the inverse's name.
        var inverses: [RecordKey: Set<String>] = [:]
        // The to-manys at the far ends of an object's to-ones, before and after: an
        // insert joins one, a delete leaves one, a move does both.
        func noteInverses(of object: ManagedObject, after: (Int) -> FieldValue?, before: (Int) -> FieldValue) {
            let fields = object.layout.fields
            for number in fields.indices {
                guard case .toOne = fields[number].kind, let now = after(number),
                      let inverse = object.entity.relationshipsByName[fields[number].name]?.inverseName else { continue }
                for case .reference(let end) in [now, before(number)] where end.rawValue != 0 {
                    inverses[end, default: []].insert(inverse)
                }
            }
        }
        func stored(_ object: ManagedObject) -> (Int) -> FieldValue {
            { number in object.stored.map { number < $0.fields.count ? $0.fields[number] : .null } ?? .null }
        }
        func fields(_ fields: [FieldValue]) -> (Int) -> FieldValue {
            { number in number < fields.count ? fields[number] : .null }
        }
        for object in writes {
            if let replaced = overwritten[object.recordKey].map(fields) {
                // Written over a version of the store's that this context never read
                // (``MergePolicy/contextWins``): the fields it read are written too, so
                // every field that differs from the store's changed.
                let read = stored(object)
                let written = { (number: Int) in object.changes[number] ?? read(number) }
                let changes = { (number: Int) in object.changes[number] != nil || written(number) != replaced(number) }
                noteInverses(of: object, after: { changes($0) ? written($0) : nil }, before: replaced)
                if object.isNew {
                    inserted.append(object.recordKey)
                    continue
                }
                let names = object.layout.fields.indices.filter(changes).map { object.layout.fields[$0].name }
                entry.changes.append(HistoryEntry.Change(type: .update, key: object.recordKey, updated: names))
                continue
            }
            noteInverses(of: object, after: { object.changes[$0] }, before: object.isNew ? { _ in .null } : stored(object))
            if object.isNew {
                inserted.append(object.recordKey)
                continue
            }
            let fields = object.layout.fields
            let names = fields.indices.filter { object.changes[$0] != nil }.map { fields[$0].name }
            entry.changes.append(HistoryEntry.Change(type: .update, key: object.recordKey, updated: names))
        }
        // The values a tombstone keeps are the store's, read through a context of their
        // own (made afresh every 256 objects, so as not to hold them all), never this
        // context's unsaved edits of the object it deletes.
        var reader: ObjectContext?
        var read = 0
        for object in deletes {
            noteInverses(of: object, after: { _ in .null }, before: overwritten[object.recordKey].map(fields) ?? stored(object))
            var change = HistoryEntry.Change(type: .delete, key: object.recordKey)
            if object.shape.storedAttributes.contains(where: \.preserveValueOnDeletion), try store.records.contains(object.recordKey) {
                if read % 256 == 0 { reader = store.newContext() }
                read += 1
                change.tombstone = try store.preservedValues(of: object.recordKey, in: reader ?? store.newContext())
            }
            entry.changes.append(change)
        }
        for (first, count) in inserted.runs { entry.changes.append(HistoryEntry.Change(type: .insert, key: first, count: count)) }
        // In key order, so that the keys' deltas are small, and so that a far end is
        // found among the changes by a binary search.
        entry.changes.sort { $0.key < $1.key }
        var farEnds: [HistoryEntry.Change] = []
        for key in touched.union(inverses.keys) {
            let names = inverses[key].map { $0.sorted() } ?? []
            // The last change starting at or before the key: the key's own, or a run of
            // inserts holding it.
            var low = 0, high = entry.changes.count
            while low < high {
                let middle = (low + high) / 2
                if entry.changes[middle].key <= key { low = middle + 1 } else { high = middle }
            }
            if low > 0, case let i = low - 1, key.rawValue - entry.changes[i].key.rawValue < UInt64(entry.changes[i].count) {
                if entry.changes[i].type == .update {
                    entry.changes[i].updated += names.filter { !entry.changes[i].updated.contains($0) }
                }
                continue
            }
            farEnds.append(HistoryEntry.Change(type: .update, key: key, updated: names))
        }
        if !farEnds.isEmpty {
            entry.changes += farEnds
            entry.changes.sort { $0.key < $1.key }
        }
        return entry.encoded()
    }
}
