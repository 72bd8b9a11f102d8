import Foundation
import StrataLog

extension ObjectContext {
    /// The history entry of a save of `writes` and `deletes` (``StoreOptions/historyTracking``):
    /// each write an insert or an update naming the fields it changed, each delete with
    /// the values its attributes marked `preserveValueOnDeletion` last held, and the
    /// objects only a to-many membership changed (`touched`) as updates naming nothing.
    func historyEntry(writes: [ManagedObject], deletes: [ManagedObject], touched: Set<RecordKey>) throws -> [UInt8] {
        var entry = HistoryEntry(timestamp: Date(), author: transactionAuthor, contextName: name)
        entry.changes.reserveCapacity(writes.count + deletes.count)
        var listed = Set<RecordKey>()
        // Objects at the far end of a to-one a write moved, with the inverse's name.
        var inverses: [RecordKey: Set<String>] = [:]
        for object in writes {
            listed.insert(object.recordKey)
            if object.isNew {
                entry.changes.append(HistoryEntry.Change(type: .insert, key: object.recordKey))
                continue
            }
            let fields = object.layout.fields
            var names: [String] = []
            for number in fields.indices {
                guard let change = object.changes[number] else { continue }
                names.append(fields[number].name)
                // A to-one moved: the to-many on either side of it changed too.
                guard case .toOne = fields[number].kind,
                      let inverse = object.entity.relationshipsByName[fields[number].name]?.inverseName else { continue }
                let before = object.stored.map { number < $0.fields.count ? $0.fields[number] : .null } ?? .null
                for case .reference(let end) in [change, before] where end.rawValue != 0 {
                    inverses[end, default: []].insert(inverse)
                }
            }
            entry.changes.append(HistoryEntry.Change(type: .update, key: object.recordKey, updated: names))
        }
        for object in deletes {
            listed.insert(object.recordKey)
            var change = HistoryEntry.Change(type: .delete, key: object.recordKey)
            for attribute in object.shape.storedAttributes where attribute.preserveValueOnDeletion {
                change.tombstone.append((attribute.name, try object.value(forKey: attribute.name)))
            }
            entry.changes.append(change)
        }
        for i in entry.changes.indices where entry.changes[i].type == .update {
            guard let names = inverses[entry.changes[i].key] else { continue }
            entry.changes[i].updated += names.sorted().filter { !entry.changes[i].updated.contains($0) }
        }
        for key in touched.union(inverses.keys) where !listed.contains(key) {
            entry.changes.append(HistoryEntry.Change(type: .update, key: key, updated: inverses[key].map { $0.sorted() } ?? []))
        }
        // In key order, so that the keys' deltas are small.
        entry.changes.sort { $0.key < $1.key }
        return entry.encoded()
    }
}
