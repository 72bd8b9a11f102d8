import StrataLog

/// Fetches that judge records, not objects (the planned path of `execute`).
///
/// Each candidate is read in place from its block (`RecordStore.visitRecords`), the
/// fields the predicate and sort keys read are decoded into slots, and the compiled
/// predicate judges them; a `ManagedObject` is made only for a result. Candidates
/// the context already holds loaded (or has changed) are judged as objects, exactly
/// as an uncompiled fetch judges them, and so is a record whose fields the compiled
/// predicate cannot read (an external binary): the answer, its order and its errors
/// are the same either way, which `FetchDifferentialTests` checks on random data.
extension ObjectContext {
    /// Compiles a request for each tag it fetches; nil when it needs managed objects.
    func compileFetch(_ request: FetchRequest, tags: [UInt16]) -> (fetches: [UInt16: CompiledFetch]?, refusal: String?) {
        var fetches: [UInt16: CompiledFetch] = [:]
        // The context's one reader of key paths through relationships (made when a path
        // needs it, not once per fetch), its memo this fetch's.
        madeToOneReader?.beginFetch()
        for tag in tags {
            guard let name = schema.entityByTag[tag], let shape = schema.shapes[name] else { continue }
            do {
                fetches[tag] = try CompiledFetch(request, shape: shape, relationships: self)
            } catch let refusal as CompiledPredicate.Refusal {
                return (nil, refusal.reason)
            } catch {
                return (nil, "\(error)")
            }
        }
        return (fetches, nil)
    }

    /// Whether the context holds `key`'s object loaded: it is judged as the object
    /// (its values as this context last read them), not on the store's record.
    private func holdsLoaded(_ key: RecordKey) -> Bool {
        guard !registry.isEmpty, let object = registry[key]?.object else { return false }
        return Self.isJudgedLoaded(object)
    }

    /// Whether a registered object is judged as itself rather than on its record: it
    /// is loaded whole (not a fault, nor partly loaded by a partial fetch).
    static func isJudgedLoaded(_ object: ManagedObject) -> Bool {
        !object.isFault && object.loadedFieldNumbers == nil
    }

    /// Whether an index's candidate `key` is judged as its object, not on its record:
    /// the context changed it (when `pending`: the fetch includes unsaved changes and
    /// there are some) or holds it loaded.
    func judgesAsObject(_ key: RecordKey, pending: Bool) -> Bool {
        (pending && changed[key] != nil) || holdsLoaded(key)
    }

    /// Runs a compiled request. `indexed` are the index's candidates, ascending, with
    /// their locations (nil: scan the entity's ranges, or walk `ordered`'s index in
    /// sort order when it can settle the answer).
    func executeCompiled(_ request: FetchRequest, tags: [UInt16], indexed: [LocatedKey]?, compiled: [UInt16: CompiledFetch],
                         keepObjects: Bool, ordered: IndexOrderWalk? = nil) throws -> FetchResult {
        let offset = max(0, request.fetchOffset)
        let limit = request.fetchLimit.flatMap { $0 >= 0 ? $0 : nil }
        let needed = limit.map { offset + $0 }
        let tagSet = Set(tags)
        let pending = request.includesPendingChanges && !changed.isEmpty
        let storeOnly = !request.includesPendingChanges
        // Without sort keys the first offset + limit matches are the answer: stop there.
        let enough = request.sortKeys.isEmpty ? needed : nil
        let run = CompiledRun(collector: FetchRowCollector(sortKeys: request.sortKeys, capacity: needed), done: enough == 0, compiled: compiled)
        if keepObjects, run.collector.mayKeepPartialRows {
            // Matches may enter with their first sort value only (the records they keep
            // give the others when a tie needs them). The fetches, not the run, are
            // captured: the run holds the collector.
            // Two leading sort values when every entity's fetch reads both early.
            let leading = compiled.values.allSatisfy { $0.secondSortSlot != nil } ? 2 : 1
            run.collector.completesLater(leading: leading) { row in
                guard let fetch = compiled[StoreSchema.tag(of: row.key)] else {
                    throw StrataError(.corrupt, "a match of \(row.key) is of no entity this fetch asked for")
                }
                try fetch.completeSortValues(&row)
            }
        }

        func judgeObject(_ key: RecordKey, position: Int) throws {
            guard let object = try preload([key], loaded: &run.loadedByFetch).first ?? nil else { return }
            let subject = try fetchSubject(object, storeOnly: storeOnly)
            if let predicate = request.predicate, try !predicate.evaluate(with: subject) { return }
            let values = try request.sortKeys.map { try $0.value(of: subject) }
            guard try run.collector.accepts(values, position: position) else { return }
            run.collector.add(FetchRow(key: key, position: position, values: values, object: object, record: nil))
            if let enough, run.collector.count >= enough { run.done = true }
        }

        func judgeRecord(_ view: RecordView, position: Int) throws {
            guard try run.judgeOnRecord(view, position: position, keepObjects: keepObjects, offset: offset) else {
                return try judgeObject(view.key, position: position)
            }
            if let enough, run.collector.count >= enough { run.done = true }
        }

        if let indexed {
            var candidates = indexed
            if pending {
                // Unsaved inserts and updates join (judged as objects), deletes leave.
                var byKey = Dictionary(candidates.lazy.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
                for object in changed.values where tagSet.contains(object.layout.tag) {
                    let key = object.recordKey
                    if object.isDeleted { byKey[key] = nil } else if byKey[key] == nil { byKey[key] = LocatedKey(key) }
                }
                candidates = byKey.values.sorted { $0.key < $1.key }
            }
            var viaObject = [Bool](repeating: false, count: candidates.count)
            var recordKeys: [LocatedKey] = []
            var recordPositions: [Int] = []
            recordKeys.reserveCapacity(candidates.count)
            for (position, located) in candidates.enumerated() {
                if judgesAsObject(located.key, pending: pending) {
                    viaObject[position] = true
                } else {
                    recordKeys.append(located)
                    recordPositions.append(position)
                }
            }
            // Read by the closures below as constants: captured as the variables they
            // were built in, each read was boxed and checked for exclusivity.
            let routes = viaObject, positions = recordPositions, judged = candidates
            // run.position: the next candidate not yet judged.
            func objectsBefore(_ end: Int) throws {
                while run.position < end && !run.done {
                    if routes[run.position] { try judgeObject(judged[run.position].key, position: run.position) }
                    run.position += 1
                }
            }
            if !run.done, !request.sortKeys.isEmpty,
               let compiled = parallelCandidatesPlan(request, tags: tags, candidates: recordKeys.count) {
                // Sorted, so every candidate is judged: the second half on a second
                // thread; those judged as objects by `objectsBefore` below, after.
                try judgeCandidatesInParallel(request, keys: recordKeys, positions: positions, compiled: compiled, run: run,
                                              needed: needed, keepObjects: keepObjects, judgeObject: judgeObject)
            } else if !run.done {
                try store.records.visitRecords(located: recordKeys) { i, view in
                    let position = positions[i]
                    try objectsBefore(position)
                    if run.done { return false }
                    run.position = position + 1
                    try judgeRecord(view, position: position)
                    return !run.done
                }
            }
            try objectsBefore(judged.count)
        } else if let ordered, let tag = tags.first, let needed,
                  try judgeInIndexOrder(ordered, tag: tag, needed: needed, collector: run.collector,
                                        judgeObject: { try judgeObject($0, position: $1) },
                                        judgeRecord: { try judgeRecord($0, position: $1) }) {
            // The index walked in sort order settled the answer.
        } else {
            // A walk in index order that could not settle the answer kept nothing.
            run.collector.removeAll()
            let queue = ObjectRouteQueue()
            for tag in tags.sorted() where !run.done {
                queue.reset(pending ? changed.values.filter { $0.layout.tag == tag && !$0.isDeleted }.map(\.recordKey).sorted() : [])
                func objectsBefore(_ key: RecordKey?) throws {
                    if queue.isDrained { return }
                    while !run.done, let next = queue.next(before: key) {
                        try judgeObject(next, position: run.position)
                        run.position += 1
                    }
                }
                // Objects registered during the walk are those it judged (keys behind
                // it): a registry empty at the start stays empty ahead of the walk.
                let mayHoldLoaded = !registry.isEmpty
                // Without unsaved changes or loaded objects every record is judged as a
                // record: no closure is asked about each key.
                let wants: ((RecordKey) -> Bool)? = !pending && !mayHoldLoaded ? nil : { key in
                    if pending && self.changed[key] != nil { return false }
                    if mayHoldLoaded && self.holdsLoaded(key) { queue.deferred.append(key); return false }
                    return true
                }
                if wants == nil, !request.sortKeys.isEmpty, let plan = parallelScanPlan(request, tag: tag) {
                    // Sorted, so every record is judged: the upper half of the keys on
                    // a second thread.
                    try scanInParallel(request, tag: tag, plan: plan, run: run, needed: needed, keepObjects: keepObjects,
                                       judgeObject: judgeObject)
                } else if wants == nil {
                    // Nothing is judged as an object ahead of the walk (the queue stays
                    // empty): the records come a block at a time and are judged in a
                    // loop here, not through a closure call each.
                    try store.records.visitRecordRuns(in: StoreSchema.range(tag: tag)) { views in
                        for view in views {
                            try judgeRecord(view, position: run.position)
                            run.position += 1
                            if run.done { return false }
                        }
                        return true
                    }
                } else {
                    try store.records.visitRecords(in: StoreSchema.range(tag: tag), wants: wants) { view in
                        try objectsBefore(view.key)
                        if run.done { return false }
                        try judgeRecord(view, position: run.position)
                        run.position += 1
                        return !run.done
                    }
                }
                try objectsBefore(nil)
            }
        }

        let windowed = run.collector.finish().dropFirst(offset).prefix(limit ?? .max)
        let keys = windowed.map(\.key)
        var loadedByFetch = run.loadedByFetch
        guard keepObjects else { return FetchResult(keys: keys, objects: [], loadedByFetch: loadedByFetch) }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(windowed.count)
        // The schema once: reached through the store per result, it was copied (and
        // its tables retained and released) for each one.
        let schema = self.schema
        for row in windowed {
            if let object = row.object {
                objects.append(object)
                continue
            }
            let object = try object(forKey: row.key)
            if let record = row.record, (object.stored == nil && !object.isNew) || object.loadedFieldNumbers != nil {
                // As an uncompiled fetch leaves them: the records read to judge the
                // results are kept in their objects.
                object.stored = try schema.decode(record)
                object.loadedFieldNumbers = nil
                // Only a partial fetch asks which objects the fetch loaded: a set of
                // the results' keys hashed for every other fetch would add a hash per
                // object made.
                if request.propertiesToFetch != nil { loadedByFetch.insert(row.key) }
            }
            objects.append(object)
        }
        return FetchResult(keys: keys, objects: objects, loadedByFetch: loadedByFetch)
    }
}

/// The state of one compiled fetch while it judges candidates. A class whose fields
/// the judging closures share, instead of local variables captured by them: those
/// would be boxed and every access to them checked for exclusivity at run time, for
/// every record a scan judges. One fetch on the context's thread owns it.
final class CompiledRun {
    let collector: FetchRowCollector
    @exclusivity(unchecked) var loadedByFetch: Set<RecordKey> = []
    @exclusivity(unchecked) var done: Bool
    /// The next candidate's position (the scan's count of candidates so far).
    @exclusivity(unchecked) var position = 0
    /// The compiled request of each tag fetched.
    let compiled: [UInt16: CompiledFetch]
    /// Most fetches have one entity: its tag and compiled request, found without a
    /// dictionary lookup. Unmanaged: `compiled` holds it for the run's life, and a
    /// strong (or unowned) reference was retained and released by every record judged.
    let onlyTag: UInt16?
    let only: Unmanaged<CompiledFetch>?

    init(collector: FetchRowCollector, done: Bool, compiled: [UInt16: CompiledFetch]) {
        self.collector = collector
        self.done = done
        self.compiled = compiled
        onlyTag = compiled.count == 1 ? compiled.first?.key : nil
        only = compiled.count == 1 ? compiled.first.map { Unmanaged.passUnretained($0.value) } : nil
    }

    /// Judges `view` on its record and adds it to the collector when it is kept (a
    /// fetch's `judgeRecord`, and each half's of a parallel scan). Returns false when
    /// the record must be judged as an object instead (a field the compiled request
    /// cannot read). With `keepObjects`, a kept match is copied out of its block (its
    /// object then needs no second read) — rows before `offset` of an unsorted fetch
    /// are not; it is decoded once it is a result.
    func judgeOnRecord(_ view: RecordView, position: Int, keepObjects: Bool, offset: Int) throws -> Bool {
        // Most candidates do not match: they are turned away without the fetch's
        // compiled request leaving the run (a retain and a release per record).
        guard let matched = try judge(view) else { return false }
        guard matched else { return true }
        // The fetch lent, not retained and released for each match (as in `judge`).
        let tag = StoreSchema.tag(of: view.key)
        if tag == onlyTag, let only {
            return try only._withUnsafeGuaranteedRef { try keep(view, fetch: $0, position: position, keepObjects: keepObjects, offset: offset) }
        }
        guard let fetch = compiled[tag] else { return true }
        return try keep(view, fetch: fetch, position: position, keepObjects: keepObjects, offset: offset)
    }

    /// Adds a match to the collector when it is kept; false when its sort values must
    /// be read from its object instead.
    private func keep(_ view: RecordView, fetch: CompiledFetch, position: Int, keepObjects: Bool, offset: Int) throws -> Bool {
        if let first = fetch.firstSortValue {
            let second = fetch.secondSortValue
            if collector.rejects(first: first, second: second) { return true }
            // Not turned away, and its lead tying with no kept row's: it comes before
            // the worst kept row (or the top-k is not full), whatever its other values.
            if keepObjects, fetch.sortsLater, collector.admitsPartial(first: first, second: second) {
                try collector.addPartial(key: view.key, position: position, first: first, second: second, view: view)
                return true
            }
        }
        guard let values = try fetch.sortValues(view) else { return false }
        guard try collector.accepts(values, position: position) else { return true }
        let wantsRecord = keepObjects && (collector.keyCount > 0 || collector.count >= offset)
        collector.add(FetchRow(key: view.key, position: position, values: values, object: nil, record: wantsRecord ? try view.record() : nil))
        return true
    }

    /// `CompiledFetch.judge(_:)` by `view`'s entity: false for an entity the fetch
    /// does not ask for, nil when the record must be judged as an object.
    func judge(_ view: RecordView) throws -> Bool? {
        let tag = StoreSchema.tag(of: view.key)
        if tag == onlyTag, let only { return try only._withUnsafeGuaranteedRef { try $0.judge(view) } }
        guard let fetch = compiled[tag] else { return false }
        return try fetch.judge(view)
    }
}

/// The candidates of a scan judged as objects, ascending: the context's changed
/// objects of one entity, and loaded objects met during the walk (`deferred`, found
/// in ascending order), merged into the walk by key.
///
/// Asked once per record of a scan, almost always empty: its fields are not checked
/// for exclusivity at run time (one fetch on the context's thread owns it), which was
/// most of what asking it cost.
final class ObjectRouteQueue {
    @exclusivity(unchecked) var changed: [RecordKey] = []
    @exclusivity(unchecked) var changedHead = 0
    @exclusivity(unchecked) var deferred: [RecordKey] = []
    @exclusivity(unchecked) var deferredHead = 0

    /// Whether nothing is queued.
    var isDrained: Bool { changedHead == changed.count && deferredHead == deferred.count }

    func reset(_ keys: [RecordKey]) {
        changed = keys
        changedHead = 0
        deferred = []
        deferredHead = 0
    }

    /// The smallest queued key below `bound` (any, when nil), taken off the queue.
    func next(before bound: RecordKey?) -> RecordKey? {
        if changedHead == changed.count && deferredHead == deferred.count { return nil }
        let a = changedHead < changed.count ? changed[changedHead] : nil
        let b = deferredHead < deferred.count ? deferred[deferredHead] : nil
        let smallest: RecordKey
        switch (a, b) {
        case (nil, nil): return nil
        case (let x?, nil): smallest = x
        case (nil, let y?): smallest = y
        case (let x?, let y?): smallest = min(x, y)
        }
        if let bound, smallest >= bound { return nil }
        if smallest == a { changedHead += 1 } else { deferredHead += 1 }
        return smallest
    }
}
