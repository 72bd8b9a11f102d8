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
        let w = writer.withLock { $0 }
        var readOnly = options
        readOnly.readOnly = true
        let view = WriterState(segmentID: w.segmentID, segmentFile: nil, segmentEnd: w.segmentEnd, segmentMinSequence: w.segmentMinSequence,
                               segmentMaxSequence: w.segmentMaxSequence, blobID: w.blobID, blobFile: nil, blobEnd: w.blobEnd)
        let snapshot = LogStore(path: path, options: readOnly, fileSystem: fileSystem, logger: logger, lock: nil, state: frozen, writer: view,
                                cache: blockCache, snapshotOf: self)
        snapshots.withLock { taken in
            taken = taken.filter { $0.value.store != nil }
            taken[ObjectIdentifier(snapshot)] = WeakSnapshot(store: snapshot)
        }
        return snapshot
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
