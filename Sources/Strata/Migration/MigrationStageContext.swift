import StrataLog

/// What a custom stage's `didMigrate` works with (``MigrationStage/DidMigrateStage``):
/// a context on the new store, one on the old store, the ``MigrationCarry`` that
/// `willMigrate` returned, and Realm's paired enumeration,
/// ``enumerateObjects(ofType:batchSize:_:)``, which walks an entity's old objects
/// together with the new objects they became.
///
/// ```swift
/// .custom(from: v1, to: v2, willMigrate: nil, didMigrate: { stage in
///     try stage.enumerateObjects(ofType: "Person") { old, new in
///         let first = try old.string("firstName") ?? "", last = try old.string("lastName") ?? ""
///         try new?.setValue("\(first) \(last)", forKey: "fullName")
///     }
/// })
/// ```
///
/// It belongs to the hook's call: use it, and the objects it hands out, only inside it.
public final class MigrationStageContext {
    /// A context on the new store. What the hook changes here is saved when it returns.
    public let new: ObjectContext
    /// A context on the old store, to read (its changes are never saved).
    public let old: ObjectContext
    /// What `willMigrate` returned (empty without one).
    public let carry: MigrationCarry
    /// The most objects one batch of ``enumerateObjects(ofType:batchSize:_:)`` held at
    /// once, old and new together: the structural bound on its memory.
    public private(set) var largestBatch = 0

    let manager: MigrationManager

    init(manager: MigrationManager, new: ObjectContext, old: ObjectContext, carry: MigrationCarry) {
        self.manager = manager
        self.new = new
        self.old = old
        self.carry = carry
    }

    /// Walks every old object of `entityName` (exactly that entity, as an entity mapping
    /// reads it) with the new object it became — Realm's
    /// `migration.enumerateObjects(ofType:) { oldObject, newObject in … }` — so a stage
    /// that splits or merges fields need not pair objects itself. The pair comes from
    /// the stage's entity mappings (whatever their kind; the first destination of the
    /// first mapping that made one); `new` is nil when the old object became nothing
    /// (its entity was removed, a predicate left it out, or it was deleted since).
    ///
    /// Objects stream in batches, as the rest of the migration does: each batch of old
    /// objects and their new ones is loaded together, handed to `body` one pair at a
    /// time, then the new objects' changes are saved and both batches let go before the
    /// next. Memory follows `batchSize`, not the entity's size. To create or relate
    /// other objects, use `new.context` (the batch's context, saved with it).
    ///
    /// - Parameters:
    ///   - entityName: The entity in the old model.
    ///   - batchSize: Objects per batch; nil takes the migration's batch size.
    ///   - body: Called once per old object, in key order; an error it throws stops the
    ///     migration, which leaves the store as it was.
    /// - Throws: `.unknownKeyPath` for an entity the old model does not have,
    ///   `.invalidArgument` for a batch size below 1, what `body` throws, and what a
    ///   batch's save throws (`.validationFailed`).
    public func enumerateObjects(ofType entityName: String, batchSize: Int? = nil,
                                 _ body: (_ old: ManagedObject, _ new: ManagedObject?) throws -> Void) throws {
        let size = batchSize ?? manager.batchSize
        guard size >= 1 else {
            throw StrataError(.invalidArgument, "the batch size must be at least 1, not \(size)", context: ["entity": entityName])
        }
        guard let tag = manager.sourceStore.schema.tags[entityName], manager.sourceModel.entity(named: entityName) != nil else {
            throw StrataError(.unknownKeyPath, "the old model '\(manager.sourceModel.versionIdentifier)' has no entity '\(entityName)'",
                              context: ["entity": entityName])
        }
        let mappings = manager.mappingModel.entityMappings(forSourceEntity: entityName).filter { $0.kind != .remove }
        // Contexts of its own: the hook's contexts keep what the hook holds, these let
        // go of every batch.
        let oldBatch = manager.sourceStore.newContext()
        let newBatch = manager.destinationStore.newContext()
        let range = StoreSchema.range(tag: tag)
        var after: RecordKey?
        while true {
            let keys = try manager.sourceStore.records.keys(in: range, after: after, limit: size)
            guard let last = keys.last else { break }
            after = last
            let olds = try oldBatch.load(keys)
            var pairs: [(ManagedObject, RecordKey?)] = []
            pairs.reserveCapacity(olds.count)
            for object in olds {
                var made: RecordKey?
                for mapping in mappings {
                    if let key = try manager.destinationKeys(of: object.recordKey, under: mapping, source: object).first {
                        made = key
                        break
                    }
                }
                pairs.append((object, made))
            }
            let news = try newBatch.load(pairs.compactMap(\.1))
            let byKey = Dictionary(news.map { ($0.recordKey, $0) }, uniquingKeysWith: { first, _ in first })
            for (object, key) in pairs {
                try body(object, key.flatMap { byKey[$0] }.flatMap { $0.isDeleted ? nil : $0 })
            }
            try newBatch.save()
            largestBatch = max(largestBatch, oldBatch.liveObjectCount + newBatch.liveObjectCount)
            manager.largestBatch = max(manager.largestBatch, largestBatch)
            oldBatch.reset()
            newBatch.reset()
        }
    }
}
