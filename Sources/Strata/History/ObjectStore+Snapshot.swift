import StrataLog

extension ObjectStore {
    /// A read-only store that answers as this one does now, while commits and
    /// compaction go on: its contexts fetch, fault and count as of one sequence
    /// (``currentHistoryToken`` of the snapshot), so a long report reads one state.
    ///
    /// ```swift
    /// let snapshot = try store.snapshot()
    /// defer { try? snapshot.close() }
    /// let context = snapshot.newContext()
    /// let total = try context.count(for: FetchRequest(entityName: "Employee"))
    /// let page = try context.fetch(FetchRequest(entityName: "Employee"))  // same state
    /// ```
    ///
    /// Taking one costs no copy of the data: it shares the store's files and index
    /// files, and the active segment's in-memory index is copied at the store's next
    /// commit. The files it reads stay readable until it is closed, whatever
    /// compaction retires meanwhile. Close it when done; closing this store ends it
    /// (its reads then throw `.closed`). Saves through its contexts throw `.readOnly`.
    ///
    /// - Throws: `.closed`; `.invalidArgument` for a store type without snapshots.
    public func snapshot() throws -> ObjectStore {
        try readOnlyView { try $0.snapshot() }
    }

    /// A read-only store over the snapshot `take` makes of this store's segment log.
    private func readOnlyView(_ take: (LogStore) throws -> LogStore) throws -> ObjectStore {
        guard let log = records as? LogStore else {
            throw StrataError(.invalidArgument, "this store type does not take snapshots", path: path)
        }
        var options = self.options
        options.log.readOnly = true
        options.instrument = nil
        return ObjectStore(uncheckedRecords: try take(log), model: model, schema: schema, serials: serials.withLock { $0 }, options: options)
    }

    /// A read-only store that answers as this one did right after the transaction of
    /// `token`, while commits and compaction go on: its contexts fetch, fault and count
    /// as of then, as ``snapshot()`` does as of now. Objects inserted later are absent,
    /// objects deleted since are back as they were, relationships as they stood.
    ///
    /// ```swift
    /// let yesterday = try store.snapshot(at: savedToken)
    /// defer { try? yesterday.close() }
    /// let then = try yesterday.newContext().fetch(FetchRequest(entityName: "Employee"))
    /// ```
    ///
    /// Any token history can still answer for (from ``historyHorizon()`` on) can be read
    /// as of, but for tokens from before the store's upgrade to on-disk format 5, whose
    /// older versions earlier releases did not keep: with ``StoreOptions/historyTracking`` on, compaction keeps the superseded
    /// versions, tombstones and blobs newer than the horizon, and for each object its
    /// version at the horizon, and reclaims them once ``deleteHistory(before:)`` or the
    /// retention moves the horizon past them. A migration restarts history: a token from
    /// before it cannot be read as of, since its objects were of another model.
    ///
    /// Taking one reads the segments holding commits after the token (memory grows with
    /// the objects changed since, not with the store); the older segments answer from
    /// their index files. It reads objects, not history: its history reads
    /// (``fetchHistory(after:limit:)``, ``historyHorizon()``, ``changes(after:)``) throw
    /// `.invalidArgument`. Close it when done.
    ///
    /// - Throws: `.historyTokenExpired` for a token older than the horizon, from before
    ///   a migration or the store's upgrade to format 5, or when history is not tracked; `.invalidArgument` for a token of
    ///   another store, one newer than the last commit, or a store type without
    ///   snapshots.
    public func snapshot(at token: HistoryToken) throws -> ObjectStore {
        guard records is LogStore else {
            throw StrataError(.invalidArgument, "this store type does not take snapshots", path: path)
        }
        let state = try checkedHistory(after: token)
        // The history a migration restarts begins with its own entry; the state just
        // before it was of the older model.
        if token.sequence + 1 == state.horizon, let first = try records.get(HistoryLog.key(state.horizon)),
           try HistoryEntry.decode(first.value).author == Self.migrationAuthor {
            throw StrataError(.historyTokenExpired, "the store was migrated after token \(token.sequence): it cannot be read as of a state of the older model",
                              path: path, context: ["token": "\(token.sequence)"])
        }
        return try readOnlyView { try $0.snapshot(asOf: token.sequence) }
    }

    /// For a store opened read-only while another process writes it
    /// (`LogStoreOptions.readOnly`): takes in that process's commits since the open
    /// or the last refresh, so that contexts made from now on see them. Returns whether
    /// anything changed. A store open for writing sees its commits already.
    ///
    /// ```swift
    /// var options = StoreOptions()
    /// options.log.readOnly = true
    /// let reader = try ObjectStore(at: path, model: model, options: options)
    /// if try reader.refresh() { reload(reader.newContext()) }
    /// ```
    ///
    /// ``changes(after:)`` refreshes on its own, every ``StoreOptions/refreshInterval``.
    ///
    /// - Throws: `.incompatibleModel` when the writer migrated the store meanwhile (its
    ///   model or record layouts changed): open it again with the new model.
    @discardableResult
    public func refresh() throws -> Bool {
        guard let log = records as? LogStore else { return false }
        let before = Self.schemaMetadata(log.metadata)
        let path = self.path
        return try log.refresh { metadata in
            guard Self.schemaMetadata(metadata) != before else { return nil }
            return StrataError(.incompatibleModel, "the writer migrated the store since it was opened (its model or record layouts changed): open it again", path: path)
        }
    }

    /// The metadata that says how records read: a reader refreshed past a change of it
    /// would read them with the wrong schema.
    private static func schemaMetadata(_ metadata: [String: [UInt8]]) -> [[UInt8]?] {
        [StoreSchema.metadataKey, StoreSchema.modelHashKey, StoreSchema.edgesMetadataKey, LayoutTable.metadataKey].map { metadata[$0] }
    }
}
