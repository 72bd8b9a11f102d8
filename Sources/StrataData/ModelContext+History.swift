extension ModelContext {
    /// Who this context's saves are made by, kept in their history transactions
    /// (``DefaultHistoryTransaction/author``), as SwiftData's `ModelContext.author`.
    public var author: String? {
        get { objectContext.transactionAuthor }
        set { objectContext.transactionAuthor = newValue }
    }

    /// The transactions of the container's store that `descriptor` selects, in commit
    /// order, as SwiftData's `fetchHistory(_:)` (the store must track history: its
    /// configuration's `options.historyTracking`).
    ///
    /// ```swift
    /// let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken })
    /// for transaction in try context.fetchHistory(descriptor) {
    ///     for change in transaction.changes {
    ///         if case .delete(let deleted as DefaultHistoryDelete<Trip>) = change { forget(deleted.tombstone[\.name]) }
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: as `ObjectStore.fetchHistory(after:limit:)` (`.historyTokenExpired`);
    ///   what the predicate throws.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        let store = container.store
        let limit = descriptor.fetchLimit ?? .max
        var found: [DefaultHistoryTransaction] = []
        var after = descriptor.startToken
        while found.count < limit {
            let page = try store.fetchHistory(after: after, limit: 512)
            guard let last = page.last else { break }
            for transaction in page {
                let typed = DefaultHistoryTransaction(transaction, schema: container.schema)
                if try descriptor.predicate?.evaluate(typed) ?? true { found.append(typed) }
                if found.count == limit { break }
            }
            after = last.token
        }
        return found
    }

    /// Deletes the transactions `descriptor` selects, as SwiftData's `deleteHistory(_:)`.
    /// History is deleted from its oldest transaction on, so the selection must be
    /// the oldest transactions kept (`#Predicate { $0.token < token }`, or none: all).
    ///
    /// - Throws: `.invalidArgument` when the selection leaves out an older transaction
    ///   than one it holds; as `ObjectStore.deleteHistory(before:)`.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        let store = container.store
        var after: DefaultHistoryToken?
        var end: DefaultHistoryToken?
        var kept = false
        while true {
            let page = try store.fetchHistory(after: after, limit: 512)
            guard let last = page.last else { break }
            for transaction in page {
                let selected = try descriptor.predicate?.evaluate(DefaultHistoryTransaction(transaction, schema: container.schema)) ?? true
                if selected && kept {
                    throw StrataError(.invalidArgument, "history is deleted from its oldest transaction on: the descriptor selects transaction \(transaction.token.sequence) but not an older one; select `$0.token < token`", path: store.path)
                }
                if selected { end = transaction.token } else { kept = true }
            }
            after = last.token
        }
        guard let end else { return }
        try store.deleteHistory(through: end)
    }
}

extension ModelContainer {
    /// A read-only container that answers as this one does now while saves go on:
    /// the ``ModelContext``s made on it read one state (`ObjectStore.snapshot()`).
    /// Close it with `close()` when done.
    ///
    /// ```swift
    /// let snapshot = try container.snapshot()
    /// defer { try? snapshot.close() }
    /// let report = ModelContext(snapshot)
    /// let trips = try report.fetch(FetchDescriptor<Trip>())
    /// ```
    public func snapshot() throws -> ModelContainer {
        ModelContainer(schema: schema, store: try store.snapshot())
    }

    /// A read-only container that answers as this one did right after the transaction
    /// of `token` (`ObjectStore.snapshot(at:)`): its ``ModelContext``s fetch the
    /// models as they were then. Any token history still answers for can be read as of.
    ///
    /// ```swift
    /// let before = try container.snapshot(at: transaction.token)
    /// defer { try? before.close() }
    /// let trips = try ModelContext(before).fetch(FetchDescriptor<Trip>())
    /// ```
    ///
    /// - Throws: as `ObjectStore.snapshot(at:)` (`.historyTokenExpired` for a token
    ///   older than the horizon or from before a migration).
    public func snapshot(at token: DefaultHistoryToken) throws -> ModelContainer {
        ModelContainer(schema: schema, store: try store.snapshot(at: token))
    }
}
