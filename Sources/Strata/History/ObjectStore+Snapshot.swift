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
        guard let log = records as? LogStore else {
            throw StrataError(.invalidArgument, "this store type does not take snapshots", path: path)
        }
        var options = self.options
        options.log.readOnly = true
        options.instrument = nil
        return ObjectStore(uncheckedRecords: try log.snapshot(), model: model, schema: schema, serials: serials.withLock { $0 }, options: options)
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
