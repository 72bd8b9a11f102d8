import StrataLog

extension ObjectContext {
    /// Runs a fetch request and returns faults: objects whose records are read only when
    /// a property is (or, for predicate and sort evaluation, read once and kept for
    /// them). External binaries are never read by a fetch.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "Employee", predicate: try Predicate(format: "salary > 50000"))
    /// request.sortKeys = [.descending("salary"), .ascending("name")]
    /// let employees = try context.fetch(request)
    /// ```
    ///
    /// - Throws: `.unknownKeyPath` naming the entity and key path for a predicate, sort
    ///   key or property to fetch that does not fit the entity; `.invalidArgument` for a
    ///   predicate with `$variables` not yet substituted.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        let started = store.instrument == nil ? nil : ContinuousClock.now
        do {
            let result = try execute(request, keepObjects: true)
            if let names = request.propertiesToFetch { try loadPartially(result.objects, properties: names, loadedByFetch: result.loadedByFetch) }
            store.record(.fetch, since: started, error: nil)
            return result.objects
        } catch {
            store.record(.fetch, since: started, error: error)
            throw error
        }
    }

    /// The ids a request matches, without handing out objects. Without a predicate or
    /// sort keys this reads no record.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        try execute(request, keepObjects: false).keys.compactMap(store.objectID(for:))
    }

    /// How many objects a request matches (its offset and limit applied). Without a
    /// predicate this reads no record.
    public func count(for request: FetchRequest) throws -> Int {
        // Without a predicate or unsaved changes of the entity, the store's counters
        // answer (one per entity range) and no key is listed.
        if request.predicate == nil, let entity = store.model.entity(named: request.entityName), let layout = try? schema.layout(entity.name) {
            let tags = request.includesSubentities ? layout.kindTags : [layout.tag]
            let tagSet = Set(tags)
            if !request.includesPendingChanges || !changed.values.contains(where: { tagSet.contains($0.layout.tag) }) {
                let stored = try tags.reduce(0) { $0 + (try store.records.count(in: StoreSchema.range(tag: $1))) }
                let afterOffset = max(0, stored - max(0, request.fetchOffset))
                guard let limit = request.fetchLimit, limit >= 0 else { return afterOffset }
                return min(limit, afterOffset)
            }
        }
        var unlimited = request
        unlimited.fetchLimit = nil
        unlimited.fetchOffset = 0
        unlimited.sortKeys = []
        let matched = try execute(unlimited, keepObjects: false).keys.count
        let afterOffset = max(0, matched - max(0, request.fetchOffset))
        guard let limit = request.fetchLimit, limit >= 0 else { return afterOffset }
        return min(limit, afterOffset)
    }

    /// What `execute` found: the matching keys in result order and, when asked, their
    /// objects (kept alive so the records read to evaluate the predicate are not lost).
    struct FetchResult {
        var keys: [RecordKey]
        var objects: [ManagedObject]
        /// Keys whose records this fetch read whole to judge them (they were faults).
        var loadedByFetch: Set<RecordKey> = []
    }

    /// Plans and runs a request: candidate keys (from the index or the entity's key
    /// ranges), corrected by unsaved changes, filtered by the predicate, sorted stably
    /// (top-k with a limit), windowed by offset and limit. A request whose predicate
    /// and sort keys read only the entity's own attributes is compiled and judged on
    /// records (ObjectContext+CompiledFetch.swift); any other is judged on managed
    /// objects, in batches, below.
    func execute(_ request: FetchRequest, keepObjects: Bool) throws -> FetchResult {
        guard let entity = store.model.entity(named: request.entityName) else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(request.entityName)'", context: ["entity": request.entityName])
        }
        try validate(request, entity: entity)
        // A limit of 0 asks for nothing: nothing is read or judged (a candidate that
        // could not be judged — a dangling reference on a key path — fails no fetch
        // that would hand back nothing).
        if request.fetchLimit == 0 { return FetchResult(keys: [], objects: []) }
        let layout = try schema.layout(entity.name)
        let tags = request.includesSubentities ? layout.kindTags : [layout.tag]
        let tagSet = Set(tags)

        let indexed = try indexedCandidates(request, entity: entity, tags: tags)
        if !interpretsFetches && (request.predicate != nil || !request.sortKeys.isEmpty),
           let compiled = compileFetch(request, tags: tags).fetches {
            return try executeCompiled(request, tags: tags, indexed: indexed?.located, compiled: compiled, keepObjects: keepObjects,
                                       ordered: indexed == nil ? indexOrderWalk(request, tags: tags) : nil)
        }
        var candidates: [RecordKey]
        // The candidates with where each version lay, kept for the faults of a fetch
        // that hands them all out (no predicate, no sort, no unsaved changes mixed in).
        var located: [LocatedKey]?
        let listedAt = store.records.lastSequence
        if let indexed {
            located = indexed.located
            candidates = indexed.located.map(\.key)
        } else {
            // One entity's list is taken as it comes: appended to an empty one, it was
            // copied whole.
            let sortedTags = tags.sorted()
            var listed = try sortedTags.first.map { try store.records.locatedKeys(in: StoreSchema.range(tag: $0)) } ?? []
            for tag in sortedTags.dropFirst() { listed += try store.records.locatedKeys(in: StoreSchema.range(tag: tag)) }
            candidates = listed.map(\.key)
            located = listed
        }
        if request.includesPendingChanges && !changed.isEmpty {
            // Unsaved inserts join, unsaved deletes leave; unsaved updates join too, as
            // an index lookup on stored values may not list an object whose new value
            // now matches (the predicate then judges every one with its new values).
            var set = Set(candidates)
            for object in changed.values where tagSet.contains(object.layout.tag) {
                if object.isDeleted { set.remove(object.recordKey) } else { set.insert(object.recordKey) }
            }
            candidates = set.sorted()
            located = nil
        }

        let offset = max(0, request.fetchOffset)
        let limit = request.fetchLimit.flatMap { $0 >= 0 ? $0 : nil }
        var matched: [ManagedObject] = []
        var matchedKeys: [RecordKey] = []
        var loadedByFetch: Set<RecordKey> = []
        // Batch faulting: the first read of any fault loads a batch of its neighbours.
        if request.predicate == nil && request.sortKeys.isEmpty {
            matchedKeys = window(candidates, offset: offset, limit: limit)
            located = located.map { window($0, offset: offset, limit: limit) }
            if keepObjects {
                registry.reserveCapacity(registry.count + matchedKeys.count)
                // Each fault joins its batch as it is made: a second pass over the
                // objects (`adopt`) read each again, after thousands of others had
                // pushed it out of the cache.
                let group = faultGroup(located: located, listedAt: listedAt, keys: matchedKeys, request)
                matched.reserveCapacity(matchedKeys.count)
                for (position, key) in matchedKeys.enumerated() {
                    let object = try object(forKey: key)
                    if object.isFault { group.join(object, at: position) }
                    matched.append(consume object)
                }
            }
        } else {
            located = nil
            // Without sort keys the first offset + limit matches are the answer: stop there.
            let enough = request.sortKeys.isEmpty ? limit.map { offset + $0 } : nil
            var sortable: [FetchSubject] = []
            var start = 0
            scan: while start < candidates.count {
                let slice = Array(candidates[start..<min(candidates.count, start + Self.fetchScanBatch)])
                start += Self.fetchScanBatch
                for case let object? in try preload(slice, loaded: &loadedByFetch) {
                    let key = object.recordKey
                    let subject = try fetchSubject(object, storeOnly: !request.includesPendingChanges)
                    if let predicate = request.predicate, try !predicate.evaluate(with: subject) { continue }
                    if request.sortKeys.isEmpty {
                        matchedKeys.append(key)
                        if keepObjects { matched.append(object) }
                        if let enough, matchedKeys.count >= enough { break scan }
                    } else {
                        sortable.append(subject)
                    }
                }
            }
            if !request.sortKeys.isEmpty {
                let sorted = try SortKey.sorted(sortable, by: request.sortKeys)
                let windowed = window(sorted, offset: offset, limit: limit)
                matchedKeys = windowed.map(\.object.recordKey)
                if keepObjects { matched = windowed.map(\.object) }
            } else {
                matchedKeys = window(matchedKeys, offset: offset, limit: limit)
                if keepObjects { matched = window(matched, offset: offset, limit: limit) }
            }
            if keepObjects { faultGroup(located: nil, listedAt: listedAt, keys: matchedKeys, request).adopt(matched) { $0.isFault } }
        }
        return FetchResult(keys: matchedKeys, objects: matched, loadedByFetch: loadedByFetch)
    }

    /// The fault group of a fetch's objects, in result order: with where each record
    /// lay when the fetch listed it, when it did.
    private func faultGroup(located: [LocatedKey]?, listedAt: UInt64, keys: [RecordKey], _ request: FetchRequest) -> FaultGroup {
        located.map { FaultGroup(located: $0, listedAt: listedAt, batchSize: request.fetchBatchSize) }
            ?? FaultGroup(keys: keys, batchSize: request.fetchBatchSize)
    }

    /// How many candidates are read and judged together (one block read each).
    static let fetchScanBatch = 512

    private func window<Element>(_ elements: [Element], offset: Int, limit: Int?) -> [Element] {
        if offset == 0 && (limit ?? .max) >= elements.count { return elements }
        return Array(elements.dropFirst(offset).prefix(limit ?? .max))
    }

    /// Checks everything a request names against the entity before reading anything.
    func validate(_ request: FetchRequest, entity: EntityDescription) throws {
        if let predicate = request.predicate {
            try predicate.validate(against: entity, in: store.model)
            let unbound = predicate.variableNames
            if !unbound.isEmpty {
                throw StrataError(.invalidArgument,
                                  "the predicate of a fetch of \(entity.name) has unsubstituted variables: \(unbound.map { "$" + $0 }.joined(separator: ", ")); call withSubstitutionVariables(_:) first",
                                  context: ["entity": entity.name, "variable": unbound[0]])
            }
        }
        for key in request.sortKeys {
            // A sort key is a key path like a predicate's: the same checks, the same
            // errors. The comparison `%K == nil` is built, not parsed from that format
            // (parsing would weigh on every query's fixed cost); an empty key path
            // still goes through the parser, which names it. Checked once per store.
            try store.checkedSortKeys.check(key.keyPath, of: entity.name) {
                let check = key.keyPath.isEmpty
                    ? try Predicate(format: "%K == nil", key.keyPath)
                    : Predicate.comparison(PredicateComparison(.keyPath(key.keyPath), .equalTo, .constant(.null)))
                try check.validate(against: entity, in: store.model)
            }
        }
        for name in request.propertiesToFetch ?? [] where entity.property(named: name) == nil {
            throw StrataError(.unknownKeyPath, "\(entity.name) has no property '\(name)' to fetch", context: ["entity": entity.name, "keyPath": name])
        }
    }

    /// The objects of `keys`, with the records of faults (and of partially loaded
    /// objects) among them read together, one read per block. The objects are
    /// returned so they stay alive while judged (the registry holds them weakly); nil
    /// marks a key the store no longer has (deleted since the candidates were listed).
    func preload(_ keys: [RecordKey], loaded: inout Set<RecordKey>) throws -> [ManagedObject?] {
        let objects = try keys.map { try object(forKey: $0) }
        let missing = objects.filter { $0.isFault || $0.loadedFieldNumbers != nil }
        guard !missing.isEmpty else { return objects }
        var gone: Set<RecordKey> = []
        let records = try store.records.get(missing.map(\.recordKey))
        for (object, record) in zip(missing, records) {
            guard let record else {
                if object.isFault { gone.insert(object.recordKey) }
                continue
            }
            object.stored = try schema.decode(record)
            object.loadedFieldNumbers = nil
            loaded.insert(object.recordKey)
        }
        return gone.isEmpty ? objects : objects.map { gone.contains($0.recordKey) ? nil : $0 }
    }
}
