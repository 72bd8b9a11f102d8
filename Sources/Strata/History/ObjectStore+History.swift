import Foundation
import StrataLog

extension ObjectStore {
    /// The token of the store's last commit: read what the store holds now, then
    /// follow its history from here.
    ///
    /// That commit is durable first, as every token history hands out is (see
    /// ``fetchHistory(after:limit:)``): a token of a commit a crash then took would
    /// name the sequence of the next commit after the restart, which a consumer
    /// following it would skip. Should that fsync fail (the store then refuses writes
    /// until reopened), it is the token of the last commit known to be durable.
    public var currentHistoryToken: HistoryToken {
        let sequence = (try? records.syncVisible(through: nil)) ?? records.durableSequence
        let entry = sequence == 0 ? nil : try? records.get(HistoryLog.key(sequence))
        return HistoryToken(sequence: sequence, storeIdentifier: identifier, entryChecksum: entry.map { CRC32C.checksum($0.value) })
    }

    /// The oldest token history can still answer for: ``fetchHistory(after:limit:)``
    /// with an older one throws `.historyTokenExpired`. Nil when history is not tracked;
    /// throws `.invalidArgument` on a store read as of a past token (``snapshot(at:)``).
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
    /// The transactions listed survive a crash: one whose fsync is still under way is
    /// waited for, and with a `LogStoreOptions.durability` other than `.everyCommit`
    /// the log is synced first.
    ///
    /// - Throws: `.historyTokenExpired` when history before the horizon that the
    ///   token needs was deleted, history is not tracked (``StoreOptions/historyTracking``),
    ///   or the store holds another transaction at the token's sequence (restored from
    ///   an older copy and written since); `.invalidArgument` for a token of another store, or one newer than the
    ///   store's last commit (a store restored from an older backup); `.corrupt` for an
    ///   entry that does not decode; `.io` when the fsync that makes them durable failed.
    public func fetchHistory(after token: HistoryToken? = nil, limit: Int = .max) throws -> [HistoryTransaction] {
        let state = try checkedHistory(after: token)
        guard limit > 0 else { return [] }
        let first = max(token.map { $0.sequence + 1 } ?? state.horizon, state.horizon, 1)
        guard first <= records.lastSequence else { return [] }
        let keys = try records.keys(in: HistoryLog.key(first)..<HistoryLog.entries.upperBound, after: nil, limit: limit)
        let found = try records.get(keys)
        // A deletion that committed since the state was read may have taken entries
        // from under this read: it moved the horizon first, so the horizon says so.
        if let moved = try historyState(), !moved.tracking || moved.horizon > first || found.contains(where: { $0 == nil }) {
            // From the oldest kept: the oldest kept is now another one.
            if token == nil && moved.tracking { return try fetchHistory(after: nil, limit: limit) }
            throw StrataError(.historyTokenExpired, "the history after token \(first - 1) was deleted while it was read: history starts after \(moved.horizon - 1)",
                              path: path, context: ["token": "\(first - 1)", "horizon": "\(moved.horizon - 1)"])
        }
        var transactions: [HistoryTransaction] = []
        transactions.reserveCapacity(keys.count)
        for (key, record) in zip(keys, found) {
            guard let record else { continue }
            transactions.append(try transaction(HistoryEntry.decode(record.value), sequence: HistoryLog.sequence(of: key),
                                                checksum: CRC32C.checksum(record.value)))
        }
        // A commit is visible before its fsync returns. A token handed out for one a
        // crash then lost would name a sequence that a later commit takes again, and
        // following it would skip that commit: what is listed is made durable first.
        if let last = transactions.last { _ = try records.syncVisible(through: last.token.sequence) }
        return transactions
    }

    /// Deletes the transactions before `token`'s, as Core Data's `deleteHistory(before:)`:
    /// the token's own transaction and what follows it are kept, so the token and the
    /// one just before it stay good; older tokens expire. The bytes
    /// go at the next compaction.
    ///
    /// - Throws: `.invalidArgument` for a token of another store, or one newer than
    ///   the store's last commit (as ``fetchHistory(after:limit:)`` refuses it: on a
    ///   store restored from an older copy, it would delete the whole history);
    ///   storage errors.
    public func deleteHistory(before token: HistoryToken) throws {
        try deleteHistory(from: token, keepingIt: true)
    }

    /// Deletes the transactions up to `token`'s, its own included (SwiftData's
    /// `deleteHistory(_:)` selects them so); refuses tokens as ``deleteHistory(before:)``.
    package func deleteHistory(through token: HistoryToken) throws {
        try deleteHistory(from: token, keepingIt: false)
    }

    private func deleteHistory(from token: HistoryToken, keepingIt: Bool) throws {
        try checkStore(of: token)
        try withSaveGate {
            let last = records.lastSequence
            guard token.sequence <= last else {
                throw StrataError(.invalidArgument, "the history token (\(token.sequence)) is newer than the store's last commit (\(last)): was the store restored from an older copy?",
                                  path: path, context: ["token": "\(token.sequence)", "last": "\(last)"])
            }
            guard let state = try historyState() else { return }
            let horizon = keepingIt ? token.sequence : token.sequence + 1
            guard horizon > state.horizon else { return }
            try deleteHistoryEntries(below: horizon, tracking: state.tracking)
        }
    }

    /// Deletes the history that ``StoreOptions/historyRetention`` no longer keeps (the
    /// store does this when it opens and in ``compact(force:bytesPerSecond:)``).
    public func trimHistory() throws {
        try withSaveGate {
            guard let state = try historyState(), state.tracking else { return }
            var horizon = state.horizon
            let kept = HistoryLog.key(max(horizon, 1))..<HistoryLog.entries.upperBound
            // A deletion a crash cut short left entries below the horizon: finished
            // first, the whole prefix's counter counts the entries kept.
            if try !records.keys(in: HistoryLog.entries.lowerBound..<kept.lowerBound, after: nil, limit: 1).isEmpty {
                try deleteHistoryEntries(below: horizon, tracking: true)
            }
            if let most = options.historyRetention.maxTransactions {
                var excess = try records.count(in: HistoryLog.entries) - max(0, most)
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
                // The oldest entry kept is usually young enough: an open reads that one
                // alone, and pages grow only while entries are to go.
                var pageSize = 1
                scan: while true {
                    let page = try records.keys(in: kept, after: after, limit: pageSize)
                    pageSize = min(256, pageSize * 16)
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

    private func checkStore(of token: HistoryToken) throws {
        guard token.storeIdentifier == identifier else {
            throw StrataError(.invalidArgument, "the history token belongs to store \(token.storeIdentifier), not to this one (\(identifier))", path: path)
        }
    }

    func checkedHistory(after token: HistoryToken?) throws -> HistoryLog.State {
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
        // The transaction the token names must be the one the store holds there: a
        // store restored from an older copy and written since holds another, and what
        // follows it is not what the consumer's copy lacks. A token with a checksum was
        // handed out for a transaction with an entry, so a store without one there holds
        // another transaction too, unless a deletion since the state was read took the
        // entry (it moved the horizon first).
        if let expected = token.entryChecksum, token.sequence >= state.horizon {
            let entry = try records.get(HistoryLog.key(token.sequence))
            let other = if let entry { CRC32C.checksum(entry.value) != expected } else { try historyState().map { $0.tracking && $0.horizon <= token.sequence } ?? false }
            if other {
                throw StrataError(.historyTokenExpired, "the store's transaction \(token.sequence) is not the one the history token names: the store was restored from an older copy and written since. Read the store afresh and follow from currentHistoryToken",
                                  path: path, context: ["token": "\(token.sequence)"])
            }
        }
        return state
    }

    private func transaction(_ entry: HistoryEntry, sequence: UInt64, checksum: UInt32) throws -> HistoryTransaction {
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
            token: HistoryToken(sequence: sequence, storeIdentifier: identifier, entryChecksum: checksum), timestamp: entry.timestamp,
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
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
