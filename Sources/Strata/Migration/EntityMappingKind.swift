/// What an ``EntityMapping`` does, as Core Data's `NSEntityMappingType`.
public enum EntityMappingKind: String, Sendable, Hashable, CaseIterable {
    /// The entity is unchanged: every object is copied as it is (its records may be
    /// carried over without decoding).
    case copy
    /// A new entity: there are no source objects.
    case add
    /// The entity is gone: its objects are not migrated.
    case remove
    /// The objects are migrated through property mappings (renames, conversions,
    /// defaults, added and removed properties).
    case transform
    /// The mapping relies on an ``EntityMigrationPolicy`` or on custom expressions.
    case custom
}
