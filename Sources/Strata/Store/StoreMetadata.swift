import Foundation
import StrataLog

/// What a store records about the model it was written with, read without opening
/// it — Core Data's `metadataForPersistentStore(ofType:at:)`. Made by
/// ``ObjectStore/metadata(at:)``.
///
/// ```swift
/// let metadata = try ObjectStore.metadata(at: path)
/// print(metadata.versionIdentifier ?? "-", metadata.versionHash ?? "-")
/// for entity in metadata.entities { print(entity.name, entity.persistentAttributeCount) }
/// if metadata.needsMigration(to: v2) { options.migration = .plan(plan) }
/// ```
public struct StoreMetadata: Sendable {
    /// One entity of the recorded model.
    public struct Entity: Sendable, Hashable {
        /// The entity's name.
        public var name: String
        /// The entity's version hash in the recorded model (``ObjectModel/entityVersionHashes``).
        public var versionHash: String
        /// How many attributes its objects store (inherited ones included, transient ones not).
        public var persistentAttributeCount: Int
        /// How many relationships it has (inherited ones included).
        public var relationshipCount: Int
        /// Whether it is abstract (it has no objects of its own).
        public var isAbstract: Bool
    }

    /// The recorded model's version identifier (``ObjectModel/versionIdentifier``), nil
    /// when the store records no model (an engine store no `ObjectStore` opened yet).
    public var versionIdentifier: String? { model?.versionIdentifier }
    /// The model version hash the store records: what opening compares with the
    /// opening model's ``ObjectModel/versionHash``. Nil when it records none.
    public let versionHash: String?
    /// The recorded model, whole: what a migration starts from.
    public let model: ObjectModel?
    /// The recorded model's entities, in its order.
    public let entities: [Entity]
    /// The store's id as hex: the host part of its object URIs.
    public let storeIdentifier: String
    /// The engine's format version the store is written in.
    public let formatVersion: UInt32

    /// The manifest's metadata, to judge compatibility as opening does.
    private let recorded: [String: [UInt8]]

    init(summary: ManifestSummary, path: String) throws {
        recorded = summary.metadata
        versionHash = summary.metadata[StoreSchema.modelHashKey].map { String(decoding: $0, as: UTF8.self) }
        do {
            model = try summary.metadata[StoreSchema.modelKey].map { try ObjectModel(jsonData: Data($0)) }
        } catch var error as StrataError {
            error.path = error.path ?? path
            error.message = "the store's recorded model does not read: " + error.message
            throw error
        }
        entities = model.map { model in
            model.entities.map {
                Entity(name: $0.name, versionHash: model.entityVersionHashes[$0.name] ?? "",
                       persistentAttributeCount: $0.storedAttributes.count, relationshipCount: $0.relationships.count,
                       isAbstract: $0.isAbstract)
            }
        } ?? []
        storeIdentifier = summary.storeID.map { String(format: "%02x", $0) }.joined()
        formatVersion = summary.formatVersion
    }

    /// Whether the store opens with `model` as it is, with no migration — as Core Data's
    /// `isConfiguration(withName:compatibleWithStoreMetadata:)`: the recorded hash is the
    /// model's (a store that records no model takes the first one it is opened with).
    public func isCompatible(with model: ObjectModel) -> Bool {
        // As opening judges it: a hash recorded under an older canonical description
        // (docs/MODEL.md) is compared as the recorded model's current hash.
        RecordedModelHash(metadata: recorded, given: model).map { $0.current == model.versionHash } ?? true
    }

    /// Whether opening the store with `model` needs a migration (``StoreOptions/migration``)
    /// or else fails with `.incompatibleModel`: the opposite of ``isCompatible(with:)``.
    public func needsMigration(to model: ObjectModel) -> Bool { !isCompatible(with: model) }

    /// The entity of the recorded model with this name.
    public func entity(named name: String) -> Entity? { entities.first { $0.name == name } }
}
