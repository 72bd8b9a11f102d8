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
    public internal(set) var largestBatch = 0
    /// Free for policies to share state across hooks of one migration.
    public var userInfo: [String: Value] = [:]

    let sourceStore: ObjectStore
    let destinationStore: ObjectStore
    let staging: LogStore
    var idMaps: [String: IDMap] = [:]
    var policies: [String: EntityMigrationPolicy] = [:]
    let progress: (@Sendable (MigrationProgress) -> Void)?
    let stage: Int
    let stageCount: Int

    init(source: ObjectStore, destination: ObjectStore, staging: LogStore, mapping: MappingModel, batchSize: Int,
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

    /// The destination objects that `sourceInstances` became under the named entity mapping.
    public func destinationInstances(forEntityMapping name: String, sourceInstances: [ManagedObject]) throws -> [ManagedObject] {
        let map = try idMap(name)
        return try sourceInstances.flatMap { source in
            try map.destinations(of: source.objectID.key).map { try destinationContext.object(forKey: $0) }
        }
    }

    /// The source objects that became `destinationInstances` under the named entity mapping.
    public func sourceInstances(forEntityMapping name: String, destinationInstances: [ManagedObject]) throws -> [ManagedObject] {
        let map = try idMap(name)
        return try destinationInstances.flatMap { destination in
            try map.sources(of: destination.objectID.key).map { try sourceContext.object(forKey: $0) }
        }
    }

    /// Records that `source` became `destination` under `mapping` (the default
    /// creation does this; a policy that creates objects itself should too).
    public func associate(sourceInstance source: ManagedObject, withDestinationInstance destination: ManagedObject, for mapping: EntityMapping) throws {
        try idMap(mapping.name).associate(source: source.objectID.key, destination: destination.objectID.key)
    }

    func idMap(_ name: String) throws -> IDMap {
        if let map = idMaps[name] { return map }
        guard mappingModel.entityMapping(named: name) != nil else {
            throw StrataError(.invalidArgument, "the mapping model has no entity mapping named '\(name)'", context: ["entityMapping": name])
        }
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        let file = try staging.createScratchFile("idmap-\(String(safe)).map")
        let map = IDMap(file: file, spillThreshold: max(1024, batchSize))
        idMaps[name] = map
        return map
    }

    func report(_ pass: MigrationProgress.Pass, _ mapping: String, _ done: Int, _ total: Int) {
        progress?(MigrationProgress(stage: stage, stageCount: stageCount, pass: pass, entityMapping: mapping, done: done, total: total, largestBatch: largestBatch))
    }
}
