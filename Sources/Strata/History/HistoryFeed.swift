import StrataLog

extension ObjectStore {
    /// Every transaction committed after `token`, in commit order, each exactly once,
    /// waiting for new ones as they come — read from the history, so a consumer that
    /// falls behind (or stops and resumes with the token it kept) misses nothing.
    ///
    /// ```swift
    /// var token = try loadToken() ?? store.currentHistoryToken
    /// for try await transaction in store.changes(after: token) {
    ///     try index.apply(transaction.changes)
    ///     token = transaction.token
    ///     try saveToken(token)
    /// }
    /// ```
    ///
    /// A store open for writing wakes the feed as its commits land; a store opened
    /// read-only beside another process's writer polls it (``refresh()``) every
    /// ``StoreOptions/refreshInterval``. The feed ends when the store closes or the
    /// task is cancelled.
    ///
    /// - Throws (from the iteration): `.historyTokenExpired` when the history the token
    ///   needs was deleted, the store does not track history, or it holds another
    ///   transaction at the token's sequence (restored from an older copy and written
    ///   since): the feed cannot resume there and says so rather than skip; `.invalidArgument` for a token of another
    ///   store, or one newer than the store's last commit.
    public func changes(after token: HistoryToken) -> HistoryFeed {
        HistoryFeed(store: self, token: token)
    }
}

/// The transactions after a token, as ``ObjectStore/changes(after:)`` delivers them.
public struct HistoryFeed: AsyncSequence, Sendable {
    public typealias Element = HistoryTransaction
    let store: ObjectStore
    let token: HistoryToken

    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, last: token)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let store: ObjectStore
        var last: HistoryToken
        var buffer: [HistoryTransaction] = []
        var position = 0
        /// Commits of this process, as a wake-up call only: what they changed is read
        /// from the history.
        var commits: AsyncStream<Void>.Iterator?

        init(store: ObjectStore, last: HistoryToken) {
            self.store = store
            self.last = last
            // Subscribed before the first read, so that no commit after it goes unheard.
            if !store.options.log.readOnly {
                commits = store.commitSignal.subscribe().makeAsyncIterator()
                store.hearOtherWriters()
            }
        }

        /// Transactions read from the history at a time: few, since one batch insert's
        /// transaction may list a change per object it inserted.
        static let page = 32

        public mutating func next() async throws -> HistoryTransaction? {
            while true {
                if position < buffer.count {
                    defer { position += 1 }
                    last = buffer[position].token
                    return buffer[position]
                }
                if Task.isCancelled { return nil }
                let (store, after) = (self.store, last)
                do {
                    buffer = try await store.read { _ in try store.fetchHistory(after: after, limit: Self.page) }
                } catch let error as StrataError where error.code == .closed {
                    return nil
                } catch is CancellationError {
                    return nil
                }
                position = 0
                if !buffer.isEmpty { continue }
                if commits != nil {
                    guard await commits?.next() != nil else { return nil }
                } else {
                    do {
                        try await Task.sleep(for: store.options.refreshInterval)
                        _ = try await store.read { _ in try store.refresh() }
                    } catch let error as StrataError where error.code == .closed {
                        return nil
                    } catch is CancellationError {
                        return nil
                    }
                }
            }
        }
    }
}

extension ObjectStore {
    /// Has the records report other processes' commits to the commit signal, once, when
    /// a feed first waits on it (a store type with other writers keeps a connection
    /// for it, which stores without feeds do not need).
    func hearOtherWriters() {
        guard records.hasOtherWriters else { return }
        let first = listeningForOtherWriters.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let signal = commitSignal
        records.observeCommits { _ in signal.signal() }
    }
}
