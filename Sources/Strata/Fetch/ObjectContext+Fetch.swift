import StrataLog

extension ObjectContext {
    /// Runs a fetch request and returns faults: objects whose records are read only when
    /// a property is (or, for predicate and sort evaluation, read once and kept for
    /// them). External binaries are never read by a fetch.
    ///
    /// - Throws: `.unknownKeyPath` naming the entity and key path for a predicate or
    ///   sort key that does not fit the entity.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        try execute(request).map { try object(forKey: $0) }
    }

    /// The ids a request matches, without handing out objects.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        try execute(request).compactMap(store.objectID(for:))
    }

    /// How many objects a request matches. Without a predicate this reads no record.
    public func count(for request: FetchRequest) throws -> Int {
        var unlimited = request
        unlimited.fetchLimit = nil
        unlimited.fetchOffset = 0
        unlimited.sortKeys = []
        let matched = try execute(unlimited).count
        return max(0, min(request.fetchLimit ?? .max, matched - request.fetchOffset))
    }

    func execute(_ request: FetchRequest) throws -> [RecordKey] {
        guard let entity = store.model.entity(named: request.entityName) else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(request.entityName)'", context: ["entity": request.entityName])
        }
        try request.predicate?.validate(against: entity, in: store.model)
        for key in request.sortKeys { try validateSortKey(key.keyPath, entity: entity) }
        let layout = try schema.layout(entity.name)
        let tags = request.includesSubentities ? layout.kindTags : [layout.tag]
        let tagSet = Set(tags)

        var candidates = try candidateKeys(request, entity: entity, tags: tags)
        if request.includesPendingChanges {
            var set = Set(candidates)
            for object in changed.values where tagSet.contains(object.layout.tag) {
                if object.isDeleted { set.remove(object.objectID.key) } else if object.isNew { set.insert(object.objectID.key) }
            }
            candidates = set.sorted()
        }

        var matched: [RecordKey]
        if request.predicate == nil && request.sortKeys.isEmpty {
            matched = candidates
        } else {
            matched = []
            let batchSize = 512
            var sortable: [ManagedObject] = []
            var start = 0
            while start < candidates.count {
                let slice = Array(candidates[start..<min(candidates.count, start + batchSize)])
                try preload(slice)
                for key in slice {
                    let object = try object(forKey: key)
                    if !request.includesPendingChanges && object.hasChanges { continue }
                    if let predicate = request.predicate, try !predicate.evaluate(with: object) { continue }
                    if request.sortKeys.isEmpty { matched.append(key) } else { sortable.append(object) }
                }
                start += batchSize
            }
            if !request.sortKeys.isEmpty {
                matched = try SortKey.sorted(sortable, by: request.sortKeys).map(\.objectID.key)
            }
        }
        if request.fetchOffset > 0 { matched = Array(matched.dropFirst(request.fetchOffset)) }
        if let limit = request.fetchLimit, limit >= 0, matched.count > limit { matched = Array(matched.prefix(limit)) }

        if request.resultType == .objects {
            let group = FaultGroup(keys: matched)
            for key in matched {
                let object = try object(forKey: key)
                if object.isFault { object.faultGroup = group }
            }
        }
        return matched
    }

    /// All keys of the entity's ranges, or fewer when an indexed attribute or a to-one
    /// reference in the predicate narrows them (equality, IN and ranges).
    private func candidateKeys(_ request: FetchRequest, entity: EntityDescription, tags: [UInt16]) throws -> [RecordKey] {
        let layout = try schema.layout(entity.name)
        if let predicate = request.predicate {
            for condition in predicate.indexableConditions() {
                guard let number = layout.fieldNumbers[condition.key], let index = layout.fields[number].termIndex,
                      let keys = indexedKeys(condition, index: index) else { continue }
                let tagSet = Set(tags)
                return keys.filter { tagSet.contains(StoreSchema.tag(of: $0)) }.sorted()
            }
        }
        var keys: [RecordKey] = []
        for tag in tags.sorted() { keys += store.records.keys(in: StoreSchema.range(tag: tag)) }
        return keys
    }

    private func indexedKeys(_ condition: IndexableCondition, index: UInt32) -> [RecordKey]? {
        switch condition.kind {
        case .equalTo(let value):
            guard let term = ObjectCodec.orderedBytes(value) else { return nil }
            return store.records.keys(for: IndexTerm(index: index, value: term))
        case .oneOf(let values):
            var keys: [RecordKey] = []
            for value in values {
                guard let term = ObjectCodec.orderedBytes(value) else { return nil }
                keys += store.records.keys(for: IndexTerm(index: index, value: term))
            }
            return keys
        case .range(let lower, let upper):
            let low = lower.map { ObjectCodec.orderedBytes($0.value) } ?? nil
            let high = upper.map { ObjectCodec.orderedBytes($0.value) } ?? nil
            if (lower != nil && low == nil) || (upper != nil && high == nil) { return nil }
            return store.records.keys(index: index, from: low, through: high,
                                      lowerInclusive: lower?.isInclusive ?? true, upperInclusive: upper?.isInclusive ?? true)
        }
    }

    /// Reads the records of faults among `keys` together, one read per block.
    private func preload(_ keys: [RecordKey]) throws {
        let missing = keys.filter { key in registry[key]?.object.map { $0.isFault } ?? true }
        guard !missing.isEmpty else { return }
        let records = try store.records.get(missing)
        for (key, record) in zip(missing, records) {
            guard let record else { continue }
            let object = try object(forKey: key)
            if object.stored == nil { object.stored = try ObjectCodec.decode(record) }
        }
    }

    private func validateSortKey(_ keyPath: String, entity: EntityDescription) throws {
        // A sort key is a key path like a predicate's: the same checks, the same errors.
        try Predicate(format: "%K == nil", keyPath).validate(against: entity, in: store.model)
    }
}
