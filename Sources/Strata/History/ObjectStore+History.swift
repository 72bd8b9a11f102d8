import Foundation
import StrataLog

extension ObjectStore {
    /// The token of the store's last commit: read what the store holds now, then
    /// follow its history from here.
    public var currentHistoryToken: HistoryToken {
        HistoryToken(sequence: records.lastSequence, storeIdentifier: identifier)
    }

    /// The oldest token history can still answer for: ``fetchHistory(after:limit:)``
    /// with an older one throws `.historyTokenExpired`. Nil when history is not tracked.
    public func historyHorizon() throws -> HistoryToken? {
        guard let state = try historyState(), state.tracking else { return nil }
        return HistoryToken(sequence: max(state.horizon, 1) - 1, storeIdentifier: identifier)
    }

    /// The transactions committed after `token` (nil: from the oldest kept), in
    /// commit order, at most `limit` of them, as Core Data's `fetchHistory(after:)`.
    ///
    /// ```swift
    /// var token = try loadSavedToken() ?? store.currentHistoryToken
    /// for transaction in try store.fetchHistory(after: token, limit: 500) {
    ///     for change in transaction.changes { invalidate(change.changedObjectID) }
    ///     token = transaction.token
    /// }
    /// ```
    ///
    /// - Throws: `.historyTokenExpired` when history before the horizon that the
    ///   token needs was deleted, or history is not tracked (``StoreOptions/historyTracking``);
    ///   `.invalidArgument` for a token of another store, or one newer than the
    ///   store's last commit (a store restored from an older backup); `.corrupt` for an
    ///   entry that does not decode.
    public func fetchHistory(after token: HistoryToken? = nil, limit: Int = .max) throws -> [HistoryTransaction] {
        let state = try checkedHistory(after: token)
        guard limit > 0 else { return [] }
        let first = max(token.map { $0.sequence + 1 } ?? state.horizon, state.horizon, 1)
        guard first <= records.lastSequence else { return [] }
        let keys = try records.keys(in: HistoryLog.key(first)..<HistoryLog.entries.upperBound, after: nil, limit: limit)
        var transactions: [HistoryTransaction] = []
        transactions.reserveCapacity(keys.count)
        for (key, record) in zip(keys, try records.get(keys)) {
            guard let record else { continue }
            transactions.append(try transaction(HistoryEntry.decode(record.value), sequence: HistoryLog.sequence(of: key)))
        }
        return transactions
    }

    /// Deletes the transactions before `token`'s, as Core Data's `deleteHistory(before:)`:
    /// the token's own transaction and what follows it are kept, so the token and the
    /// one just before it stay good; older tokens expire. The bytes
    /// go at the next compaction.
    ///
    /// - Throws: `.invalidArgument` for a token of another store; storage errors.
    public func deleteHistory(before token: HistoryToken) throws {
        try checkStore(of: token)
        try withSaveGate {
            guard let state = try historyState() else { return }
            let horizon = min(token.sequence, records.lastSequence + 1)
            guard horizon > state.horizon else { return }
            try deleteHistoryEntries(below: horizon, tracking: state.tracking)
        }
    }

    /// Deletes the history that ``StoreOptions/historyRetention`` no longer keeps (the
    /// store does this when it opens and when it compacts).
    public func trimHistory() throws {
        try withSaveGate {
            guard let state = try historyState(), state.tracking else { return }
            var horizon = state.horizon
            let kept = HistoryLog.key(max(horizon, 1))..<HistoryLog.entries.upperBound
            if let most = options.historyRetention.maxTransactions {
                var excess = try records.count(in: kept) - max(0, most)
                var after: RecordKey?
                while excess > 0 {
                    let page = try records.keys(in: kept, after: after, limit: min(excess, 8_192))
                    guard let last = page.last else { break }
                    excess -= page.count
                    after = last
                    horizon = max(horizon, HistoryLog.sequence(of: last) + 1)
                }
            }
            if let age = options.historyRetention.maxAge {
                let cutoff = Date().addingTimeInterval(-age.seconds)
                var after: RecordKey?
                scan: while true {
                    let page = try records.keys(in: kept, after: after, limit: 256)
                    guard let last = page.last else { break }
                    for (key, record) in zip(page, try records.get(page)) {
                        guard let record else { continue }
                        if try HistoryEntry.decode(record.value).timestamp >= cutoff { break scan }
                        horizon = max(horizon, HistoryLog.sequence(of: key) + 1)
                    }
                    after = last
                }
            }
            if horizon > state.horizon { try deleteHistoryEntries(below: horizon, tracking: true) }
        }
    }

    /// Whether the records of a store track history: tools that open a store with
    /// options of their own (the `strata` commands) keep its history by passing this
    /// on as ``StoreOptions/historyTracking``.
    package static func historyIsTracked(in records: any RecordStore) throws -> Bool {
        try records.get(HistoryLog.stateKey).map { try HistoryLog.State.decode($0.value).tracking } ?? false
    }

    /// Whether `key` is one of the history's records (its state or an entry), which
    /// no entity owns.
    package static func isHistoryKey(_ key: RecordKey) -> Bool { StoreSchema.tag(of: key) == HistoryLog.tag }

    /// What is wrong with the stored history, at most `limit` problems: a state record
    /// or an entry that does not decode, an entry of a transaction after the last
    /// commit or of none (sequence 0), a change of a key under no entity's tag.
    package func historyProblems(limit: Int) -> [StrataError] {
        var problems: [StrataError] = []
        func add(_ error: any Error, _ key: RecordKey) {
            guard problems.count < limit else { return }
            var problem = (error as? StrataError) ?? StrataError(.corrupt, "\(error)")
            problem.context["key"] = String(key.rawValue, radix: 16)
            problems.append(problem)
        }
        do {
            if let record = try records.get(HistoryLog.stateKey) {
                do { _ = try HistoryLog.State.decode(record.value) } catch { add(error, HistoryLog.stateKey) }
            }
            let entities = Set(schema.allTags).union(schema.layoutTable.retiredTags)
            let last = records.lastSequence
            var after: RecordKey?
            while problems.count < limit {
                let keys = try records.keys(in: HistoryLog.entries, after: after, limit: 512)
                guard let end = keys.last else { break }
                for (key, record) in zip(keys, try records.get(keys)) {
                    guard let record else { continue }
                    let sequence = HistoryLog.sequence(of: key)
                    if sequence > last {
                        add(StrataError(.corrupt, "a history entry is of transaction \(sequence), after the last commit (\(last))"), key)
                        continue
                    }
                    do {
                        let entry = try HistoryEntry.decode(record.value)
                        if let stray = entry.changes.first(where: { !entities.contains(StoreSchema.tag(of: $0.key)) }) {
                            add(StrataError(.corrupt, "history entry \(sequence) names key \(String(stray.key.rawValue, radix: 16)), under no entity's tag"), key)
                        }
                    } catch {
                        add(error, key)
                    }
                }
                after = end
            }
        } catch {
            add(error, HistoryLog.stateKey)
        }
        return problems
    }

    /// Whether this store writes history entries: tracking is on and it is writable.
    var tracksHistory: Bool { options.historyTracking && !options.log.readOnly }

    /// The state record, nil when history was never tracked here.
    func historyState() throws -> HistoryLog.State? {
        try records.get(HistoryLog.stateKey).map { try HistoryLog.State.decode($0.value) }
    }

    /// Brings the stored history in line with the options at open: tracking starts
    /// at the next commit, stops with its entries deleted, or (after a migration, which
    /// may have rewritten every object) starts over.
    func settleHistory(migrated: Bool) throws {
        guard !options.log.readOnly else { return }
        let state = try historyState()
        let next = records.lastSequence + 1
        if options.historyTracking {
            if let state, state.tracking, !migrated {
                try trimHistory()
            } else if migrated {
                // Past the commit that records it: a migration may have changed records
                // without a commit (layouts in metadata), and no token from before it
                // may stay good.
                try deleteHistoryEntries(below: next + 1, tracking: true)
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
    func deleteHistoryEntries(below horizon: UInt64, tracking: Bool) throws {
        let below = HistoryLog.entries.lowerBound..<HistoryLog.key(max(horizon, 1))
        var first = true
        while true {
            let keys = try records.keys(in: below, after: nil, limit: 8_192)
            if keys.isEmpty && !first { return }
            var batch = WriteBatch()
            if first { batch.put(HistoryLog.stateKey, value: HistoryLog.State(tracking: tracking, horizon: horizon).encoded()) }
            for key in keys { batch.delete(key) }
            try records.commit(batch)
            first = false
            if keys.count < 8_192 { return }
        }
    }

    private func checkStore(of token: HistoryToken) throws {
        guard token.storeIdentifier == identifier else {
            throw StrataError(.invalidArgument, "the history token belongs to store \(token.storeIdentifier), not to this one (\(identifier))", path: path)
        }
    }

    private func checkedHistory(after token: HistoryToken?) throws -> HistoryLog.State {
        if let token { try checkStore(of: token) }
        guard let state = try historyState(), state.tracking else {
            throw StrataError(.historyTokenExpired, "this store does not track history: open it with historyTracking on", path: path)
        }
        guard let token else { return state }
        guard token.sequence <= records.lastSequence else {
            throw StrataError(.invalidArgument, "the history token (\(token.sequence)) is newer than the store's last commit (\(records.lastSequence)): was the store restored from an older copy?", path: path)
        }
        guard token.sequence + 1 >= state.horizon else {
            throw StrataError(.historyTokenExpired, "the history after token \(token.sequence) was deleted: history starts after \(state.horizon - 1). Read the store afresh and follow from currentHistoryToken",
                              path: path, context: ["token": "\(token.sequence)", "horizon": "\(state.horizon - 1)"])
        }
        return state
    }

    private func transaction(_ entry: HistoryEntry, sequence: UInt64) throws -> HistoryTransaction {
        for change in entry.changes where change.count > 1 {
            // A run is expanded into a change per key: a damaged count must not make a
            // fetch allocate beyond the keys the entity ever handed out.
            let tag = StoreSchema.tag(of: change.key)
            let handedOut = max(serials.withLock { $0[tag] ?? 1 }, try Self.loadSerials(tag: tag, records: records))
            guard (change.key.rawValue & ObjectID.serialMask) + UInt64(change.count) <= handedOut else {
                throw StrataError(.corrupt, "history entry \(sequence) holds a run of \(change.count) inserted keys from \(change.key), past the keys its entity has handed out",
                                  path: path, context: ["sequence": "\(sequence)"])
            }
        }
        return HistoryTransaction(
            token: HistoryToken(sequence: sequence, storeIdentifier: identifier), timestamp: entry.timestamp,
            author: entry.author, contextName: entry.contextName,
            changes: entry.changes.flatMap { change in
                (0..<change.count).map { offset in
                    let key = RecordKey(change.key.rawValue &+ UInt64(offset))
                    return HistoryTransaction.Change(changeType: change.type,
                                                     changedObjectID: objectID(for: key) ?? ObjectID(entityName: "", key: key, storeIdentifier: identifier),
                                                     updatedAttributes: change.updated,
                                                     tombstone: change.type == .delete ? Dictionary(change.tombstone, uniquingKeysWith: { a, _ in a }) : nil)
                }
            })
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

    /// Runs `body` holding the lock saves check and commit under.
    func withSaveGate<T>(_ body: () throws -> T) rethrows -> T {
        let gate = SaveGate.lock(for: self)
        gate.lock()
        defer { gate.unlock() }
        return try body()
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
