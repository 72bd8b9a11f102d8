/// Customises how one ``EntityMapping`` migrates its objects, as Core Data's
/// `NSEntityMigrationPolicy` does. Subclass it, override the hooks you need and call
/// `super` for the default behaviour.
///
/// The hooks run in Core Data's order, each pass over every entity mapping before the
/// next pass starts: ``begin(_:manager:)``, ``createDestinationInstances(forSource:mapping:manager:)``
/// once per source object, ``endInstanceCreation(mapping:manager:)``,
/// ``createRelationships(forDestination:mapping:manager:)`` once per destination object,
/// ``endRelationshipCreation(mapping:manager:)``, ``performCustomValidation(mapping:manager:)``,
/// ``end(mapping:manager:)``. A hook that throws stops the migration and leaves the store
/// as it was.
///
/// ```swift
/// final class PhotoSplitPolicy: EntityMigrationPolicy {
///     override func createDestinationInstances(
///         forSource source: ManagedObject, mapping: EntityMapping, manager: MigrationManager
///     ) throws {
///         try super.createDestinationInstances(forSource: source, mapping: mapping, manager: manager)
///         // … create a Photo for the employee's photo and link it through `profile`
///     }
/// }
///
/// EntityMapping(name: "EmployeeToEmployee", kind: .custom,
///               sourceEntityName: "Employee", destinationEntityName: "Employee",
///               policy: { PhotoSplitPolicy() })
/// ```
///
/// A policy is made fresh for each migration (`EntityMapping.makePolicy()`), so a
/// subclass may keep state across its hooks, such as counts for validation.
open class EntityMigrationPolicy {
    /// Creates a policy. Subclasses that add stored properties give them initial values.
    public init() {}

    /// Called once before any object of the mapping is migrated.
    open func begin(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called once per source object (that passes the mapping's source predicate). The
    /// default creates one destination object and sets its attributes from the
    /// mapping's ``EntityMapping/attributeMappings``. An override that creates the
    /// destination objects itself is responsible for every attribute it wants kept.
    open func createDestinationInstances(
        forSource source: ManagedObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultDestinationInstance(for: source, mapping: mapping)
    }

    /// Called once after every source object of the mapping went through
    /// ``createDestinationInstances(forSource:mapping:manager:)``.
    open func endInstanceCreation(mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called once per destination object the mapping created. The default sets its
    /// relationships from ``EntityMapping/relationshipMappings``, resolving the source
    /// objects' destinations through the manager's old-to-new object map.
    open func createRelationships(
        forDestination destination: ManagedObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultRelationships(for: destination, mapping: mapping)
    }

    /// Called once after every destination object went through
    /// ``createRelationships(forDestination:mapping:manager:)``.
    open func endRelationshipCreation(mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called once after relationships are made, before the store is switched: throw to
    /// refuse the migration.
    open func performCustomValidation(mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called once when the mapping is done.
    open func end(mapping: EntityMapping, manager: MigrationManager) throws {}
}
