import StrataLog

extension MigrationManager {
    /// Runs the three passes and every hook, in Core Data's order. Writes go to the
    /// staging store; nothing of the old store changes.
    func run(beforeValidation: (ObjectContext) throws -> Void = { _ in }) throws {
        let mappings = mappingModel.entityMappings
        for mapping in mappings { policies[mapping.name] = mapping.makePolicy() }

        // Pass 1: create destination instances, entity mapping by entity mapping.
        for mapping in mappings {
            guard let policy = policies[mapping.name] else { continue }
            try MigrationHookFailure.wrap(hook: "begin", mapping: mapping) { try policy.begin(mapping, manager: self) }
            if mapping.kind != .remove && mapping.kind != .add,
               let sourceName = mapping.sourceEntityName, let tag = sourceStore.schema.tags[sourceName] {
                try forEachBatch(of: StoreSchema.range(tag: tag), in: sourceStore.records) { keys, done, total in
                    // On a server, which of the batch's keys the store already holds,
                    // in one round trip (an object keeps its key unless it is taken).
                    if destinationStore.records.prefersBatchedLookups {
                        batchLiveKeys = (Set(keys), try destinationStore.records.liveKeys(among: keys))
                    }
                    defer { batchLiveKeys = nil }
                    for source in try sourceContext.load(keys) {
                        if let predicate = mapping.sourcePredicate, try !predicate.evaluate(with: source) { continue }
                        try MigrationHookFailure.wrap(hook: "createDestinationInstances", mapping: mapping, object: source) {
                            try policy.createDestinationInstances(forSource: source, mapping: mapping, manager: self)
                        }
                    }
                    try endBatch()
                    report(.createInstances, mapping.name, done, total)
                }
            }
            try MigrationHookFailure.wrap(hook: "endInstanceCreation", mapping: mapping) { try policy.endInstanceCreation(mapping: mapping, manager: self) }
            try endBatch()
        }

        // Pass 2: relationships, once per destination object of mappings whose policy
        // may set them (the default creation already mapped the rest).
        for mapping in mappings {
            guard let policy = policies[mapping.name] else { continue }
            if mapping.needsRelationshipPass, let map = idMaps[mapping.name] {
                try map.spill()
                var pending: [RecordKey] = []
                var sources: [RecordKey: [RecordKey]] = [:]
                var done = 0
                func flush() throws {
                    relationshipPass = (mapping.name, sources)
                    defer { relationshipPass = nil }
                    for destination in try destinationContext.load(pending) where !destination.isDeleted {
                        try MigrationHookFailure.wrap(hook: "createRelationships", mapping: mapping, object: destination) {
                            try policy.createRelationships(forDestination: destination, mapping: mapping, manager: self)
                        }
                    }
                    try endBatch()
                    done += pending.count
                    report(.createRelationships, mapping.name, done, map.count)
                    pending.removeAll(keepingCapacity: true)
                    sources.removeAll(keepingCapacity: true)
                }
                var seen = Set<RecordKey>()
                try map.forEach { source, destination in
                    sources[destination, default: []].append(source)
                    guard seen.insert(destination).inserted else { return }
                    pending.append(destination)
                    if pending.count >= batchSize {
                        try flush()
                        seen.removeAll(keepingCapacity: true)
                    }
                }
                try flush()
            }
            try MigrationHookFailure.wrap(hook: "endRelationshipCreation", mapping: mapping) { try policy.endRelationshipCreation(mapping: mapping, manager: self) }
            try endBatch()
        }

        // A stage's didMigrate hook sees the new store with every object migrated.
        let hookContext = destinationStore.newContext()
        try beforeValidation(hookContext)

        // Pass 3: validate every destination object against the new model, streaming.
        try validateDestination()
        for mapping in mappings {
            try MigrationHookFailure.wrap(hook: "performCustomValidation", mapping: mapping) {
                try policies[mapping.name]?.performCustomValidation(mapping: mapping, manager: self)
            }
        }
        for mapping in mappings {
            try MigrationHookFailure.wrap(hook: "end", mapping: mapping) { try policies[mapping.name]?.end(mapping: mapping, manager: self) }
        }
        try endBatch()
    }

    /// Saves what the batch created and lets go of its objects.
    func endBatch() throws {
        largestBatch = max(largestBatch, sourceContext.liveObjectCount + destinationContext.changed.count)
        try destinationContext.commitForMigration()
        destinationContext.reset()
        sourceContext.reset()
    }

    private func validateDestination() throws {
        var failures: [ValidationFailure] = []
        let validator = ObjectValidator(context: destinationContext)
        for entity in destinationModel.entities where !entity.isAbstract {
            guard let tag = destinationStore.schema.tags[entity.name] else { continue }
            try forEachBatch(of: StoreSchema.range(tag: tag), in: destinationStore.records) { keys, done, total in
                let objects = try destinationContext.load(keys)
                // On a server, the batch's index lookups in one round trip.
                let prefetched = try destinationStore.prefetchedTerms(try objects.flatMap { object in
                    try object.shape.uniqueConstraints.compactMap { constraint in try object.constrainedValues(constraint).map { ($0, constraint) } }
                })
                for object in objects where failures.count < 100 {
                    failures += try validator.failures(of: object)
                    try checkUniqueness(of: object, prefetched: prefetched)
                }
                largestBatch = max(largestBatch, destinationContext.liveObjectCount)
                destinationContext.reset()
                report(.validate, entity.name, done, total)
            }
        }
        if let first = failures.first {
            var context = [
                "objects": failures.map(\.description).joined(separator: "\n"), "count": "\(failures.count)",
                "entity": first.object.entityName, "object": first.object.description, "rule": first.rule,
                "sourceHash": sourceModel.versionHash, "destinationHash": destinationModel.versionHash,
            ]
            context["property"] = first.property
            throw StrataError(.migrationValidationFailed, "the migrated objects do not validate against the new model; the store is unchanged: " + failures.prefix(20).map(\.description).joined(separator: "; "),
                              context: context)
        }
    }

    /// Checks every uniqueness rule of the new model for one migrated object against
    /// the migrated store, through its index (the staging store's terms, which the
    /// creation pass wrote): a constraint the old model lacked, or a policy or
    /// `didMigrate` that made two objects alike, fails the migration here. One index
    /// lookup per object and rule, the values confirmed on the decoded candidates:
    /// memory follows the batch, not the store.
    ///
    /// - Throws: `.uniquenessViolation` naming the rule (`entity`, `properties`), the
    ///   `value` and the `objects`; the store is unchanged.
    private func checkUniqueness(of object: ManagedObject, prefetched: [IndexTerm: [RecordKey]]?) throws {
        for constraint in object.shape.uniqueConstraints {
            guard let values = try object.constrainedValues(constraint) else { continue }
            let key = object.recordKey
            guard let other = try destinationStore.storedDuplicates(of: values, for: constraint, prefetched: prefetched, excluding: { $0 == key }).first,
                  let otherID = destinationStore.objectID(for: other) else { continue }
            throw constraint.migrationViolation(values: values, objects: [object.objectID, otherID],
                                                sourceHash: sourceModel.versionHash, destinationHash: destinationModel.versionHash)
        }
    }

    /// Pages through a key range `batchSize` keys at a time, with the running count.
    private func forEachBatch(of range: Range<RecordKey>, in records: any RecordStore, _ body: ([RecordKey], _ done: Int, _ total: Int) throws -> Void) throws {
        let total = try records.count(in: range)
        var done = 0
        var after: RecordKey?
        while true {
            let keys = try records.keys(in: range, after: after, limit: batchSize)
            guard let last = keys.last else { return }
            done += keys.count
            try body(keys, done, total)
            after = last
        }
    }
}
