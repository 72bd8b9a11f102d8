/// How the objects of a store written under one model become objects of another, as
/// Core Data's `NSMappingModel`: the two models' version hashes and one
/// ``EntityMapping`` per source or destination entity.
///
/// Infer one for the changes lightweight migration can make, or write one:
///
/// ```swift
/// let inferred = try MappingModel.inferred(from: v1, to: v2)
/// let custom = MappingModel(from: v1, to: v2, entityMappings: [
///     EntityMapping(name: "EmployeeToEmployee", kind: .custom,
///                   sourceEntityName: "Employee", destinationEntityName: "Employee",
///                   policy: { PhotoSplitPolicy() }),
/// ])
/// ```
///
/// A mapping model is pure data: it reads and writes nothing. The migration manager
/// runs it.
public struct MappingModel: Sendable {
    /// The ``ObjectModel/versionHash`` of the model the store is written under.
    package var sourceModelHash: String
    /// The ``ObjectModel/versionHash`` of the model the store is migrated to.
    package var destinationModelHash: String
    /// The entity mappings, in the order the manager runs them.
    public var entityMappings: [EntityMapping]

    /// Creates a mapping model from version hashes.
    package init(sourceModelHash: String, destinationModelHash: String, entityMappings: [EntityMapping]) {
        self.sourceModelHash = sourceModelHash
        self.destinationModelHash = destinationModelHash
        self.entityMappings = entityMappings
    }

    /// Creates a mapping model between two models.
    public init(from source: ObjectModel, to destination: ObjectModel, entityMappings: [EntityMapping]) {
        self.init(
            sourceModelHash: source.versionHash,
            destinationModelHash: destination.versionHash,
            entityMappings: entityMappings)
    }

    /// The entity mapping with this name, or nil.
    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }

    /// The entity mappings that read objects of this source entity.
    package func entityMappings(forSourceEntity name: String) -> [EntityMapping] {
        entityMappings.filter { $0.sourceEntityName == name }
    }

    /// The entity mappings that create objects of this destination entity.
    package func entityMappings(forDestinationEntity name: String) -> [EntityMapping] {
        entityMappings.filter { $0.destinationEntityName == name }
    }
}
