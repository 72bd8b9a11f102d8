import Foundation
import StrataLog

// How the object layer keeps its history: which stores write it, the state record,
// what open does with it, and the entries batch operations write.
extension ObjectStore {
    /// The author of the entry a migration leaves (``HistoryTransaction/author``).
    public static let migrationAuthor = "strata.migration"

    /// Whether this store writes history entries: tracking is on and it is writable.
    var tracksHistory: Bool { options.historyTracking && !options.log.readOnly }

    /// The state record, nil when history was never tracked here.
    func historyState() throws -> HistoryLog.State? {
        // History is kept by the store, not by what it was: entries deleted since are
        // not kept for reads as of the past.
        if (records as? LogStore)?.readsAsOfThePast == true {
            throw StrataError(.invalidArgument, "a store read as of a past token has no history: read history from the store itself", path: path)
        }
        return try records.get(HistoryLog.stateKey).map { try HistoryLog.State.decode($0.value) }
    }

    /// Brings the stored history in line with the options at open: tracking starts
    /// at the next commit, stops with its entries deleted, or (after a migration, which
    /// may have rewritten every object) starts over with the migration's own entry.
    func settleHistory(migrated: Bool) throws {
        guard !options.log.readOnly else { return }
        let state = try historyState()
        // A store at the last sequence takes no more commits (they are refused with
        // `.limitExceeded`); the bound only keeps this sum from overflowing.
        let next = records.lastSequence == .max ? .max : records.lastSequence + 1
        // A state written under another model: a migration came since, whose open
        // stopped (a crash) before it restarted the history.
        let migrated = migrated || state.map { $0.modelHash != nil && $0.modelHash != model.versionHash } ?? false
        if options.historyTracking {
            if let state, state.tracking, !migrated {
                try trimHistory()
            } else if migrated {
                // The migration's entry names no object (it may have rewritten them
                // all): a consumer that had read everything before it learns of it
                // from the entry, one further behind finds its token expired.
                let entry = HistoryEntry(timestamp: Date(), author: Self.migrationAuthor, contextName: "migration to \(model.versionIdentifier)")
                try deleteHistoryEntries(below: next, tracking: true, entry: entry)
            } else {
                try deleteHistoryEntries(below: next, tracking: true)
            }
        } else if let state, state.tracking {
            try deleteHistoryEntries(below: next, tracking: false)
        }
    }

    /// Deletes every entry below `horizon` and records the horizon, a page of entries
    /// a transaction; the first one records the horizon, so that a crash between
    /// pages leaves entries no token can reach, never a token that misses one.
    func deleteHistoryEntries(below horizon: UInt64, tracking: Bool, entry: HistoryEntry? = nil) throws {
        let below = HistoryLog.entries.lowerBound..<HistoryLog.key(max(horizon, 1))
        var first = true
        while true {
            let keys = try records.keys(in: below, after: nil, limit: 8_192)
            if keys.isEmpty && !first { return }
            var batch = WriteBatch()
            if first {
                batch.put(HistoryLog.stateKey, value: HistoryLog.State(tracking: tracking, horizon: horizon, modelHash: model.versionHash).encoded())
                if let entry { batch.put(entry.encoded(), keyedBySequenceAfter: HistoryLog.stateKey) }
            }
            for key in keys { batch.delete(key) }
            try records.commit(batch)
            first = false
            if keys.count < 8_192 { return }
        }
    }

    /// Puts the history entry of a batch operation, which no context makes, into its
    /// transaction's `batch`.
    /// `inserted` are runs of consecutive keys.
    func putHistory(inserted: [(first: RecordKey, count: Int)] = [], updated: [RecordKey] = [], deleted: [(RecordKey, [(String, Value)])] = [],
                    into batch: inout WriteBatch) {
        var entry = HistoryEntry(timestamp: Date())
        entry.changes.reserveCapacity(inserted.count + updated.count + deleted.count)
        for (first, count) in inserted { entry.changes.append(HistoryEntry.Change(type: .insert, key: first, count: count)) }
        for key in Set(updated) { entry.changes.append(HistoryEntry.Change(type: .update, key: key)) }
        for (key, tombstone) in deleted { entry.changes.append(HistoryEntry.Change(type: .delete, key: key, tombstone: tombstone)) }
        entry.changes.sort { $0.key < $1.key }
        batch.put(entry.encoded(), keyedBySequenceAfter: HistoryLog.stateKey)
    }

    /// The values of a stored object's attributes marked `preserveValueOnDeletion`,
    /// read from its record through `context` (for a delete no context holds the object of).
    func preservedValues(of key: RecordKey, in context: ObjectContext) throws -> [(String, Value)] {
        guard let name = schema.entityName(of: key), let shape = schema.shapes[name],
              shape.storedAttributes.contains(where: \.preserveValueOnDeletion) else { return [] }
        let object = try context.existingObject(with: ObjectID(entityName: name, key: key, storeIdentifier: identifier))
        return try shape.storedAttributes.filter(\.preserveValueOnDeletion).map { ($0.name, try object.value(forKey: $0.name)) }
    }

    /// Runs `body` as a save runs its checks and commit (batch operations too): no
    /// other commit to the store lands in between (``RecordStore/exclusively(_:)``).
    func withSaveGate<T>(_ body: () throws -> T) throws -> T {
        try records.exclusively(body)
    }

    /// Whether the records of a store track history: tools that open a store with
    /// options of their own (the `strata` commands) keep its history by passing this
    /// on as ``StoreOptions/historyTracking``.
    package static func historyIsTracked(in records: any RecordStore) throws -> Bool {
        try records.get(HistoryLog.stateKey).map { try HistoryLog.State.decode($0.value).tracking } ?? false
    }
}
