import Foundation
import StrataLog

/// What `ObjectStore` does when the store's model is not the one it is opened with.
public enum StoreMigration: Sendable {
    /// Refuse with `.incompatibleModel` naming both hashes. The default.
    case none
    /// Infer a lightweight migration from the store's model to the new one; refuse,
    /// before writing anything, what cannot be inferred.
    case inferred
    /// Apply these mapping models in sequence (Core Data's multiple passes), each from
    /// the store's current model to the next; the last must end at the opening model.
    case mappings([MappingModel], models: [ObjectModel])
    /// A staged plan, as SwiftData's `SchemaMigrationPlan`: a store of any listed
    /// version is taken to the newest, stage by stage, in one open. The stages run into
    /// staging stores and only the last is swapped in: an error in any stage, or a
    /// crash, leaves the store at the version it had.
    case plan(MigrationPlan)
}

extension StoreMigration {
    var isRequested: Bool {
        if case .none = self { return false }
        return true
    }
}

extension StoreOptions {
    /// Objects per migration batch: ``migrationBatchSize``, else what the budget leaves
    /// for objects in flight (`MigrationBudget`).
    var migrationBatch: Int { MigrationBudget(self).batch }
}

/// Runs migrations of a store directory: one mapping model at a time, each into a
/// staging store that replaces the old one only when every pass has succeeded.
enum StoreMigrator {
    /// Migrates the store behind `records` (opened for writing) to `target`. Returns the
    /// records to use from then on (the segment log reopened after a swap).
    ///
    /// A stage that must rewrite the store runs into a staging store of the store's
    /// type (``StagingRecordStore``); a store type without staging stores runs in-place
    /// stages only, and refuses one that must rewrite with `.migrationFailed`, the store
    /// untouched.
    static func migrate(_ log: any RecordStore, path: String, to target: ObjectModel, options: StoreOptions) throws -> any RecordStore {
        // The segment log, whose block cache the budget holds to its share.
        let engine = log as? LogStore
        // The store as one that stages rewrites and swaps them in; nil when it cannot.
        let rewritableStore = log as? any StagingRecordStore
        // Every record is read through the stored tags and layouts: edited ones would
        // migrate each object as another's.
        try MetadataDigest.check(log.metadata, path: path)
        guard let sourceModel = try ObjectStore.storedModel(in: log) else {
            throw StrataError(.migrationFailed, "the store does not record the model it was written with; it cannot be migrated", path: path)
        }
        var steps: [Step] = []
        switch options.migration {
        case .none:
            throw StrataError(.incompatibleModel, "no migration asked for", path: path)
        case .inferred:
            steps = [Step(mapping: try MappingModel.inferred(from: sourceModel, to: target), destination: target, isInferred: true)]
        case .mappings(let mappings, let models):
            guard mappings.count == models.count else {
                throw StrataError(.invalidArgument, "\(mappings.count) mapping models for \(models.count) models: they must pair up", path: path)
            }
            guard models.last?.versionHash == target.versionHash else {
                throw StrataError(.noMigrationPath, "the last mapping's model '\(models.last?.versionIdentifier ?? "none")' is not the model the store is opened with ('\(target.versionIdentifier)')", path: path,
                                  context: ["storeHash": sourceModel.versionHash, "storeVersion": sourceModel.versionIdentifier,
                                            "modelHash": target.versionHash, "modelVersion": target.versionIdentifier])
            }
            steps = zip(mappings, models).map { Step(mapping: $0, destination: $1) }
        case .plan(let plan):
            guard plan.newestModel?.versionHash == target.versionHash else {
                throw StrataError(.noMigrationPath, "the plan's newest model '\(plan.newestModel?.versionIdentifier ?? "none")' is not the model the store is opened with ('\(target.versionIdentifier)')", path: path,
                                  context: ["planHash": plan.newestModel?.versionHash ?? "none", "modelHash": target.versionHash,
                                            "modelVersion": target.versionIdentifier,
                                            "storeHash": sourceModel.versionHash, "storeVersion": sourceModel.versionIdentifier])
            }
            for stage in try plan.path(fromHash: sourceModel.versionHash, storeVersion: sourceModel.versionIdentifier) {
                steps.append(Step(mapping: try stage.mappingModel(), destination: stage.destination,
                                  willMigrate: stage.willMigrate, didMigrate: stage.didMigrateHook, isInferred: stage.mapping == nil))
            }
        }
        // Each stage reads the previous stage's staging store and writes a staging store
        // of its own inside it; only the last is swapped in, so an error or a crash in
        // any stage leaves the store at its old version (FORMAT.md §10).
        var stagings: [any StagingRecordStore] = []
        func withCacheLimited(_ body: () throws -> Void) throws {
            guard let engine else { return try body() }
            try engine.withBlockCacheLimited(to: MigrationBudget(options).cacheBytes, body)
        }
        func closeStagings() { for staging in stagings.reversed() { try? staging.close() } }
        var currentModel = sourceModel
        var largestBatch = 0
        // The live store's metadata as in-place stages changed it, not written yet: it
        // is written once, at the end, when no stage rewrote the store (one manifest
        // swap), and a rewriting stage after them reads the store through it.
        var pendingMetadata: [String: [UInt8]]?
        // The cache the source and staging stores share is part of the budget while the
        // stages run (given back whatever happens; the store reopens after a swap anyway).
        let budget = MigrationBudget(options)
        do {
            try withCacheLimited {
                for (index, step) in steps.enumerated() {
                    let (mapping, destination) = (step.mapping, step.destination)
                    guard mapping.sourceModelHash == currentModel.versionHash else {
                        throw StrataError(.noMigrationPath, "mapping \(index + 1) starts from model hash \(mapping.sourceModelHash), the store is at '\(currentModel.versionIdentifier)' (hash \(currentModel.versionHash))", path: path,
                                          context: ["storeHash": currentModel.versionHash, "storeVersion": currentModel.versionIdentifier,
                                                    "mappingSourceHash": mapping.sourceModelHash])
                    }
                    let source: any RecordStore = stagings.last ?? log
                    let sourceMetadata = stagings.isEmpty ? pendingMetadata : nil
                    if step.isInferred, step.willMigrate == nil, step.didMigrate == nil,
                       let inPlace = try inPlace(source, metadata: sourceMetadata, path: path, from: currentModel, to: destination,
                                                 options: options, stage: index, stageCount: steps.count) {
                        options.migrationProgress?(MigrationProgress(stage: index, stageCount: steps.count, pass: .inPlace, entityMapping: "", done: 1, total: 1, largestBatch: 0))
                        if stagings.isEmpty {
                            pendingMetadata = inPlace.metadata
                        } else {
                            try source.setMetadata(MetadataDigest.sealed(inPlace.metadata))
                        }
                        currentModel = destination
                        continue
                    }
                    guard let rewritable = stagings.last ?? rewritableStore else {
                        throw StrataError(.migrationFailed, "this stage rewrites the store, and this store type runs in-place stages only (metadata and index builds); migrate a copy on the segment log and copy it back", path: path,
                                          context: ["from": currentModel.versionIdentifier, "to": destination.versionIdentifier])
                    }
                    let staging = try rewritable.stagingStore(overlayEntryLimit: budget.stagingOverlayEntries)
                    stagings.append(staging)
                    largestBatch = max(largestBatch, try runStep(rewritable, into: staging, path: path, from: currentModel, to: destination, mapping: mapping, options: options,
                                stage: index, stageCount: steps.count, willMigrate: step.willMigrate, didMigrate: step.didMigrate,
                                isInferred: step.isInferred, sourceMetadata: sourceMetadata))
                    currentModel = destination
                }
            }
            guard let last = stagings.last else {
                if let pendingMetadata {
                    options.migrationProgress?(MigrationProgress(stage: steps.count - 1, stageCount: steps.count, pass: .swap, entityMapping: "", done: 0, total: 1, largestBatch: 0))
                    try log.setMetadata(MetadataDigest.sealed(pendingMetadata))
                }
                return log
            }
            options.migrationProgress?(MigrationProgress(stage: steps.count - 1, stageCount: steps.count, pass: .swap, entityMapping: "", done: 0, total: 1, largestBatch: largestBatch))
            guard let rewritableStore else { throw StrataError(.migrationFailed, "a staging store without a store to adopt it", path: path) }
            try rewritableStore.adopt(staging: last)
        } catch {
            closeStagings()
            rewritableStore?.discardStagingStores()
            throw error
        }
        closeStagings()
        guard let rewritableStore else { throw StrataError(.migrationFailed, "a staging store without a store to adopt it", path: path) }
        return try rewritableStore.reopenedAfterAdopting()
    }

    /// One mapping of a migration.
    struct Step {
        var mapping: MappingModel
        var destination: ObjectModel
        var willMigrate: MigrationStage.WillMigrate? = nil
        var didMigrate: MigrationStage.DidMigrateStage? = nil
        /// Whether the mapping was inferred, so that what it drops is logged.
        var isInferred = false
    }

    /// One mapping: three passes from `log` into `staging`. The caller swaps or
    /// discards the staging store; nothing of `log` changes here.
    static func runStep(_ log: any RecordStore, into staging: any StagingRecordStore, path: String, from sourceModel: ObjectModel, to destinationModel: ObjectModel,
                        mapping: MappingModel, options: StoreOptions, stage: Int, stageCount: Int,
                        willMigrate: MigrationStage.WillMigrate? = nil, didMigrate: MigrationStage.DidMigrateStage? = nil,
                        isInferred: Bool = false, sourceMetadata: [String: [UInt8]]? = nil) throws -> Int {
        let sourceSchema = try ObjectStore.storedSchema(in: log, model: sourceModel, metadata: sourceMetadata)
        let sourceSerials = try ObjectStore.loadSerials(schema: sourceSchema, records: log)
        let source = ObjectStore(records: log, model: sourceModel, schema: sourceSchema, serials: sourceSerials, options: options)

        // Entities that continue an old one keep its tag, so their objects keep their keys.
        var destinationTags: [String: UInt16] = [:]
        for entityMapping in mapping.entityMappings where entityMapping.kind != .remove && entityMapping.kind != .add {
            guard let from = entityMapping.sourceEntityName, let to = entityMapping.destinationEntityName,
                  let tag = sourceSchema.tags[from], destinationTags[to] == nil, !destinationTags.values.contains(tag) else { continue }
            destinationTags[to] = tag
        }
        // Tags of removed entities are retired: a new entity never reuses one, so an old
        // key can never name an object of another entity.
        let destinationSchema = try StoreSchema(model: destinationModel, existing: destinationTags,
                                                firstNewTag: (sourceSchema.tags.values.max() ?? 0) + 1)
        var serials: [UInt16: UInt64] = [:]
        for (_, tag) in destinationSchema.tags { serials[tag] = sourceSerials[tag] ?? 1 }
        // Edges are all written anew into the staging store, under its own edge tags.
        for (_, tag) in destinationSchema.edgeTags where serials[tag] == nil { serials[tag] = 1 }

        if isInferred {
            try warnOfDataLoss(records: log, schema: sourceSchema, path: path, from: sourceModel, to: destinationModel,
                               mapping: mapping, options: options, stage: stage, stageCount: stageCount)
        }

        let destination = ObjectStore(records: staging, model: destinationModel, schema: destinationSchema, serials: serials, options: options,
                                      exactTerms: true)
        let manager = MigrationManager(source: source, destination: destination, staging: staging, mapping: mapping,
                                       batchSize: options.migrationBatch, progress: options.migrationProgress, stage: stage, stageCount: stageCount)
        // SwiftData's order: willMigrate on the old model, the mapping's passes, then
        // didMigrate on the new model; what one hands the other is explicit. didMigrate
        // may also read the old store, to stream its objects in batches.
        let label = "'\(sourceModel.versionIdentifier)' → '\(destinationModel.versionIdentifier)'"
        let carry = try MigrationHookFailure.wrap(hook: "willMigrate", stage: label) {
            try willMigrate?(source.newContext()) ?? .empty
        }
        try manager.run(beforeValidation: { context in
            guard let didMigrate else { return }
            try MigrationHookFailure.wrap(hook: "didMigrate", stage: label) {
                try didMigrate(MigrationStageContext(manager: manager, new: context, old: source.newContext(), carry: carry))
                try context.save()
            }
        })
        try destination.commitSerialCounters()
        try ObjectStore.recordModel(destinationModel, schema: destinationSchema, in: staging)
        options.logger.info("migration stage done", metadata: ["path": "\(path)", "stage": "\(stage + 1)/\(stageCount)", "largestBatch": "\(manager.largestBatch)"])
        return manager.largestBatch
    }
}

extension StoreMigrator {
    /// Plans an inferred stage in place (InPlaceMigration); nil, logged with the reason,
    /// when it needs the streaming rewrite.
    static func inPlace(_ source: any RecordStore, metadata: [String: [UInt8]]?, path: String, from sourceModel: ObjectModel, to destination: ObjectModel,
                        options: StoreOptions, stage: Int, stageCount: Int) throws -> InPlaceMigration? {
        let schema = try ObjectStore.storedSchema(in: source, model: sourceModel, metadata: metadata)
        do {
            let plan = try InPlaceMigration.plan(from: sourceModel, schema: schema, records: source,
                                                 metadata: metadata ?? source.metadata, to: destination,
                                                 scratch: UniquenessScan.Scratch(options), batchSize: options.migrationBatch)
            if !plan.removed.isEmpty {
                // As the rewrite warns of what inference drops (without counting it: that
                // would read every record the stage does not touch).
                options.logger.warning("inferred migration discards stored values", metadata: [
                    "path": "\(path)", "stage": "\(stage + 1)/\(stageCount)",
                    "from": "\(sourceModel.versionIdentifier)", "to": "\(destination.versionIdentifier)",
                    "discarded": "\(plan.removed.map { "\($0): removed, its stored values are no longer read" }.joined(separator: "; "))",
                ])
            }
            options.logger.info("migration stage runs in place", metadata: [
                "path": "\(path)", "stage": "\(stage + 1)/\(stageCount)",
                "from": "\(sourceModel.versionIdentifier)", "to": "\(destination.versionIdentifier)",
            ])
            return plan
        } catch let refusal as InPlaceMigration.Refusal {
            options.logger.info("migration stage rewrites the store", metadata: [
                "path": "\(path)", "stage": "\(stage + 1)/\(stageCount)", "reason": "\(refusal)",
            ])
            return nil
        }
    }

    /// Logs, at warning level, what an inferred mapping discards of the stored data
    /// (as Core Data, inference may drop a removed attribute's values; it should not do
    /// so unseen). Counting streams only the entities that lose something.
    static func warnOfDataLoss(records: any RecordStore, schema: StoreSchema, path: String, from source: ObjectModel,
                               to destination: ObjectModel, mapping: MappingModel, options: StoreOptions,
                               stage: Int, stageCount: Int) throws {
        let preview = try MigrationPreviewer(mapping: mapping, source: source, destination: destination,
                                             records: records, schema: schema).preview()
        guard preview.discardsData else { return }
        options.logger.warning("inferred migration discards stored values", metadata: [
            "path": "\(path)", "stage": "\(stage + 1)/\(stageCount)",
            "from": "\(source.versionIdentifier)", "to": "\(destination.versionIdentifier)",
            "discarded": "\(preview.dataLossSummary)",
        ])
    }
}
