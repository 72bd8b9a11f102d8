extension LogStore {
    /// A read-only view of the store as of its last commit, while commits, rolls and
    /// compaction go on: reads through it answer as the store did when it was taken.
    ///
    /// ```swift
    /// let snapshot = try store.snapshot()
    /// defer { try? snapshot.close() }
    /// let before = try snapshot.get(RecordKey(1))   // whatever commits came since
    /// ```
    ///
    /// A snapshot is the index as it stood (the active segment's overlay is copied on
    /// the store's next write, the sealed index files are shared) over the same open
    /// files. Files that compaction retires meanwhile are unlinked, but a file's bytes
    /// stay readable through a handle open on it until the snapshot lets go of it.
    /// Closing the snapshot releases it; closing the store ends every snapshot of it
    /// (their reads then throw `.closed`). Writes through a snapshot throw `.readOnly`.
    public func snapshot() throws -> LogStore {
        let frozen = try state.withLock { s -> State in
            if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
            return s
        }
        var readOnly = options
        readOnly.readOnly = true
        // Reads go through the state alone; the writer's side is named, never used
        // (taking the writer lock would wait out a whole chunked commit).
        let view = WriterState(segmentID: frozen.manifest.activeSegment?.id ?? 0, segmentFile: nil, segmentEnd: 0,
                               blobID: frozen.manifest.activeBlobFile?.id ?? 0, blobFile: nil, blobEnd: 0)
        // Snapshots of a snapshot are its root store's, which closes the files.
        let root = snapshotRoot ?? self
        let snapshot = LogStore(path: path, options: readOnly, fileSystem: fileSystem, logger: logger, lock: nil, state: frozen, writer: view,
                                cache: blockCache, snapshotOf: root)
        let closed = root.snapshots.withLock { taken -> Bool in
            taken = taken.filter { $0.value.store != nil }
            taken[ObjectIdentifier(snapshot)] = WeakSnapshot(store: snapshot)
            return root.state.withLock { $0.isClosed }
        }
        // A close that began meanwhile may have ended the snapshots before this one was listed.
        if closed {
            snapshot.release()
            throw StrataError(.closed, "the store is closed", path: path)
        }
        return snapshot
    }

    /// Ends every snapshot taken of this store.
    func releaseSnapshots() {
        for snapshot in snapshots.withLock({ s in defer { s = [:] }; return s.values.compactMap(\.store) }) { snapshot.release() }
    }

    /// Ends a snapshot: its index and its references to the files are dropped (the
    /// store closes the files), and its reads throw `.closed` from now on.
    func release() {
        state.withLock { s in
            s.isClosed = true
            s.segmentFiles = [:]
            s.blobFiles = [:]
            s.index = StoreIndex()
        }
    }
}

/// A snapshot its store ends at close, held without keeping it alive.
struct WeakSnapshot: @unchecked Sendable {
    // @unchecked: a weak reference to a `Sendable` class, read and written only under
    // the store's `snapshots` lock.
    weak var store: LogStore?
}
