import StrataLog

extension ObjectContext {
    /// Hands the objects a request matches to `body` a batch at a time, in store order,
    /// and lets each batch go before reading the next: memory follows the batch size,
    /// not the number of matches. For walking a whole entity — an export, a custom
    /// migration stage's `didMigrate` reading the old store — where ``fetch(_:)`` would
    /// keep every match alive at once.
    ///
    /// ```swift
    /// try old.enumerateObjects(FetchRequest(entityName: "WineNote"), batchSize: 500) { notes in
    ///     for note in notes { … }
    ///     try new.save()
    /// }
    /// ```
    ///
    /// Objects are released after `body` returns unless something else holds them (an
    /// unsaved change does). The predicate, offset, limit, subentities and pending
    /// changes work as in a fetch; sort keys do not, as sorting needs every match.
    ///
    /// - Parameters:
    ///   - request: What to walk; its sort keys must be empty.
    ///   - batchSize: Objects per batch; nil takes the request's `fetchBatchSize`, or
    ///     the store's `faultBatchSize` when that is 0.
    ///   - body: Called once per non-empty batch; an error it throws stops the walk.
    /// - Throws: As ``fetch(_:)``; `.invalidArgument` for sort keys or a batch size
    ///   below 1.
    public func enumerateObjects(_ request: FetchRequest, batchSize: Int? = nil, _ body: ([ManagedObject]) throws -> Void) throws {
        guard request.sortKeys.isEmpty else {
            throw StrataError(.invalidArgument, "enumerateObjects walks \(request.entityName) in store order: it cannot sort; use fetch(_:) to sort",
                              context: ["entity": request.entityName])
        }
        let size = batchSize ?? (request.fetchBatchSize > 0 ? request.fetchBatchSize : store.options.faultBatchSize)
        guard size >= 1 else {
            throw StrataError(.invalidArgument, "the batch size must be at least 1, not \(size)", context: ["entity": request.entityName])
        }
        // The keys alone (no record is read for them); the predicate is judged batch by
        // batch below, so each record is read once.
        var keysOnly = request
        keysOnly.predicate = nil
        keysOnly.fetchOffset = 0
        keysOnly.fetchLimit = nil
        let keys = try execute(keysOnly, keepObjects: false).keys
        if let entity = store.model.entity(named: request.entityName) { try validate(request, entity: entity) }

        var skip = max(0, request.fetchOffset)
        var remaining = request.fetchLimit.flatMap { $0 >= 0 ? $0 : nil } ?? .max
        var start = 0
        var loaded: Set<RecordKey> = []
        while start < keys.count && remaining > 0 {
            let slice = Array(keys[start..<min(keys.count, start + size)])
            start += size
            var batch: [ManagedObject] = []
            for case let object? in try preload(slice, loaded: &loaded) {
                if let predicate = request.predicate {
                    let subject = try fetchSubject(object, storeOnly: !request.includesPendingChanges)
                    if try !predicate.evaluate(with: subject) { continue }
                }
                if skip > 0 { skip -= 1; continue }
                batch.append(object)
                remaining -= 1
                if remaining == 0 { break }
            }
            loaded.removeAll(keepingCapacity: true)
            if !batch.isEmpty { try body(batch) }
            batch = []
        }
    }
}
