extension FetchRequest {
    /// The plan `context` would run this request with — which index serves it, whether
    /// it is judged on records or on objects, how it is ordered — without running it
    /// (indexes may be read to see whether they serve it; no record is).
    ///
    /// ```swift
    /// print(try request.explain(in: context))   // SCAN Employee / FILTER ON RECORDS (compiled) / …
    /// ```
    ///
    /// - Throws: as ``ObjectContext/fetch(_:)`` for a request that does not fit the model.
    public func explain(in context: ObjectContext) throws -> FetchPlan {
        try context.plan(for: self)
    }
}

extension ObjectContext {
    /// The plan `execute` follows for `request` (the same decisions, in the same order).
    func plan(for request: FetchRequest) throws -> FetchPlan {
        guard let entity = store.model.entity(named: request.entityName) else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(request.entityName)'", context: ["entity": request.entityName])
        }
        try validate(request, entity: entity)
        let layout = try schema.layout(entity.name)
        let tags = request.includesSubentities ? layout.kindTags : [layout.tag]
        let offset = max(0, request.fetchOffset)
        let limit = request.fetchLimit.flatMap { $0 >= 0 ? $0 : nil }
        var plan = FetchPlan(entityName: entity.name, access: .keys, filter: .none, order: .keyOrder(stopsAfter: nil), sortKeys: request.sortKeys)
        if request.predicate == nil && request.sortKeys.isEmpty { return plan }
        let candidates = try indexedCandidates(request, entity: entity, tags: tags)
        plan.access = candidates.map { .index(conditions: $0.conditions.map(\.description)) } ?? .scan
        if interpretsFetches {
            plan.filter = .objects(reason: "interpreted on request")
        } else {
            let compiled = compileFetch(request, tags: tags)
            plan.filter = compiled.fetches != nil ? .records : .objects(reason: compiled.refusal ?? "not compiled")
        }
        if candidates == nil, case .records = plan.filter, let walk = indexOrderWalk(request, tags: tags) {
            plan.access = .indexOrder(attribute: walk.attribute, descending: walk.descending)
        }
        if request.sortKeys.isEmpty {
            plan.order = .keyOrder(stopsAfter: limit.map { offset + $0 })
        } else if let limit, case .records = plan.filter {
            plan.order = .top(count: offset + limit)
        } else {
            plan.order = .sortAll
        }
        // As `executeCompiled` decides per entity scanned: sorted, judged on records,
        // nothing to judge as an object ahead of the walk, and large enough.
        if case .scan = plan.access, case .records = plan.filter, !request.sortKeys.isEmpty,
           !(request.includesPendingChanges && !changed.isEmpty), registry.isEmpty,
           tags.contains(where: { parallelScanPlan(request, tag: $0) != nil }) {
            plan.threads = 2
        }
        if let candidates, case .records = plan.filter, !request.sortKeys.isEmpty {
            // The candidates read as records: not those the context changed or holds.
            let pending = request.includesPendingChanges && !changed.isEmpty
            let onRecords = candidates.located.count { !judgesAsObject($0.key, pending: pending) }
            if parallelCandidatesPlan(request, tags: tags, candidates: onRecords) != nil { plan.threads = 2 }
        }
        return plan
    }
}
