import Foundation
import StrataLog

/// Runs one migration: streams the old store's records in batches through the mapping
/// model's entity mappings and writes the new version of every object into a staging
/// store beside the old one, in three passes — create instances, create relationships,
/// validate — in Core Data's hook order. Only when every pass has succeeded does the
/// staging store replace the old one (one manifest rename); a failure or a crash at any
/// point leaves the old store as it was.
///
/// Entity migration policies receive the manager in every hook:
///
/// ```swift
/// final class PhotoSplitPolicy: EntityMigrationPolicy {
///     override func createDestinationInstances(forSource employee: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
///         try super.createDestinationInstances(forSource: employee, mapping: mapping, manager: manager)
///         guard try employee.hasValue("photo") else { return }
///         let destination = try manager.destinationInstances(forEntityMapping: mapping.name, sourceInstances: [employee])[0]
///         let photo = try manager.destinationContext.insert("Photo")
///         try photo.takeValue(forKey: "photo", from: employee)      // the blob, by reference
///         try destination.setObject(photo, forKey: "profile")
///     }
/// }
/// ```
///
/// Memory follows the batch size, not the store: the manager keeps at most one batch of
/// source and destination objects alive and the id map on disk.
public final class MigrationManager {
    /// The model the store is migrated from.
    public let sourceModel: ObjectModel
    /// The model the store is migrated to.
    public let destinationModel: ObjectModel
    /// The mapping being applied.
    public let mappingModel: MappingModel
    /// Reads the old store. Objects come and go batch by batch.
    public let sourceContext: ObjectContext
    /// Writes the new store. Objects inserted here are saved at the end of each batch.
    public let destinationContext: ObjectContext
    /// How many source objects one batch holds.
    public let batchSize: Int
    /// The most objects the two contexts held at once: the structural bound on memory.
    package internal(set) var largestBatch = 0
    /// Free for policies to share state across hooks of one migration.
    public var userInfo: [String: Value] = [:]

    let sourceStore: ObjectStore
    let destinationStore: ObjectStore
    let staging: any StagingRecordStore
    var idMaps: [String: IDMap] = [:]
    var policies: [String: EntityMigrationPolicy] = [:]
    /// During the relationship pass: the source keys of the batch's destinations, so
    /// that finding a destination's sources is not a scan of the map.
    var relationshipPass: (mapping: String, sources: [RecordKey: [RecordKey]])?
    /// During a creation batch on a store type that batches lookups: the batch's
    /// source keys, and which of them the destination store holds (looked up at once).
    var batchLiveKeys: (asked: Set<RecordKey>, live: Set<RecordKey>)?
    let progress: (@Sendable (MigrationProgress) -> Void)?
    let stage: Int
    let stageCount: Int

    init(source: ObjectStore, destination: ObjectStore, staging: any StagingRecordStore, mapping: MappingModel, batchSize: Int,
         progress: (@Sendable (MigrationProgress) -> Void)?, stage: Int, stageCount: Int) {
        self.sourceStore = source
        self.destinationStore = destination
        self.staging = staging
        self.sourceModel = source.model
        self.destinationModel = destination.model
        self.mappingModel = mapping
        self.sourceContext = source.newContext()
        self.destinationContext = destination.newContext()
        self.batchSize = max(1, batchSize)
        self.progress = progress
        self.stage = stage
        self.stageCount = stageCount
    }

    // MARK: For policies

    /// The destination objects that `sourceInstances` became under the named entity
    /// mapping, whatever its kind: through the mapping's object map when its objects got
    /// new keys or a policy made them, and by key for a mapping whose objects kept their
    /// keys (no map is written for those). A source object the mapping did not migrate
    /// (another entity, refused by its `sourcePredicate`, not migrated yet) gives
    /// nothing. So one policy can link to what another mapping made, once that mapping's
    /// pass has run (each pass runs over every entity mapping before the next starts).
    ///
    /// ```swift
    /// // In a policy of "EmployeeToEmployee", after "DepartmentToDepartment" (a plain copy):
    /// let departments = try manager.destinationInstances(
    ///     forEntityMapping: "DepartmentToDepartment", sourceInstances: [try employee.object("department")!])
    /// ```
    ///
    /// - Throws: `.invalidArgument` when the mapping model has no entity mapping of this name.
    public func destinationInstances(forEntityMapping name: String, sourceInstances: [ManagedObject]) throws -> [ManagedObject] {
        let mapping = try entityMapping(name)
        return try sourceInstances.flatMap { source in
            try destinationKeys(of: source.recordKey, under: mapping, source: source).map { try destinationContext.object(forKey: $0) }
        }
    }

    /// The source objects that became `destinationInstances` under the named entity
    /// mapping, whatever its kind (the reverse of
    /// ``destinationInstances(forEntityMapping:sourceInstances:)``).
    ///
    /// - Throws: `.invalidArgument` when the mapping model has no entity mapping of this name.
    public func sourceInstances(forEntityMapping name: String, destinationInstances: [ManagedObject]) throws -> [ManagedObject] {
        let mapping = try entityMapping(name)
        return try destinationInstances.flatMap { destination in
            try sourceKeys(of: destination.recordKey, under: mapping).map { try sourceContext.object(forKey: $0) }
        }
    }

    func entityMapping(_ name: String) throws -> EntityMapping {
        guard let mapping = mappingModel.entityMapping(named: name) else {
            throw StrataError(.invalidArgument, "the mapping model has no entity mapping named '\(name)'", context: ["entityMapping": name])
        }
        return mapping
    }

    /// Whether a mapping's objects keep their source keys (its destination entity
    /// continues the source entity's tag), so that no map is needed to find them.
    func keepsKeys(_ mapping: EntityMapping) -> Bool {
        guard mapping.kind != .add && mapping.kind != .remove,
              let from = mapping.sourceEntityName, let to = mapping.destinationEntityName,
              let tag = sourceStore.schema.tags[from] else { return false }
        return destinationStore.schema.tags[to] == tag
    }

    /// The destination keys a source key became under `mapping`. `source`, when the
    /// caller has the object, spares loading it for the mapping's source predicate.
    func destinationKeys(of key: RecordKey, under mapping: EntityMapping, source: ManagedObject? = nil) throws -> [RecordKey] {
        if let map = idMaps[mapping.name] {
            let mapped = try map.destinations(of: key)
            if !mapped.isEmpty { return mapped }
        }
        // A key-keeping mapping maps nothing: its object has the source's key, if the
        // mapping took this object (exact entity, predicate) and has made it.
        guard keepsKeys(mapping), sourceStore.schema.entityName(of: key) == mapping.sourceEntityName,
              try madeByKey(key, mapping: mapping, source: source) else { return [] }
        return [key]
    }

    /// The source keys that became `key` under `mapping`.
    func sourceKeys(of key: RecordKey, under mapping: EntityMapping) throws -> [RecordKey] {
        if relationshipPass?.mapping == mapping.name, let batch = relationshipPass?.sources[key] { return batch }
        if let map = idMaps[mapping.name] {
            let mapped = try map.sources(of: key)
            if !mapped.isEmpty { return mapped }
        }
        guard keepsKeys(mapping), sourceStore.schema.entityName(of: key) == mapping.sourceEntityName,
              try sourceStore.records.contains(key), try madeByKey(key, mapping: mapping, source: nil) else { return [] }
        return [key]
    }

    /// Whether `mapping` made the destination object with the source's own key.
    private func madeByKey(_ key: RecordKey, mapping: EntityMapping, source: ManagedObject?) throws -> Bool {
        guard try destinationContext.held(key)?.isDeleted == false || destinationStore.records.contains(key) else { return false }
        guard let predicate = mapping.sourcePredicate else { return true }
        let object = try source ?? sourceContext.object(forKey: key)
        return try predicate.evaluate(with: object)
    }

    /// Records that `source` became `destination` under `mapping` (the default
    /// creation does this; a policy that creates objects itself should too).
    public func associate(sourceInstance source: ManagedObject, withDestinationInstance destination: ManagedObject, for mapping: EntityMapping) throws {
        try idMap(mapping.name).associate(source: source.recordKey, destination: destination.recordKey)
    }

    func idMap(_ name: String) throws -> IDMap {
        if let map = idMaps[name] { return map }
        _ = try entityMapping(name)
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        let file = try staging.scratchFile(named: "idmap-\(String(safe)).map")
        let map = IDMap(file: file, spillThreshold: max(1024, batchSize))
        idMaps[name] = map
        return map
    }

    func report(_ pass: MigrationProgress.Pass, _ mapping: String, _ done: Int, _ total: Int) {
        progress?(MigrationProgress(stage: stage, stageCount: stageCount, pass: pass, entityMapping: mapping, done: done, total: total, largestBatch: largestBatch))
    }
}
