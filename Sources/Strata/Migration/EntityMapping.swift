/// How the objects of one source entity become objects of one destination entity, as
/// Core Data's `NSEntityMapping`.
///
/// An entity mapping migrates the objects whose entity is exactly ``sourceEntityName``
/// (a sub-entity has its own mapping), filtered by ``sourcePredicate`` when set. Two
/// mappings may read the same source entity: that splits one entity into two kinds by
/// a condition.
///
/// ```swift
/// let events = EntityMapping(
///     name: "EventToEvent", kind: .custom,
///     sourceEntityName: "Event", destinationEntityName: "Event",
///     attributeMappings: [
///         PropertyMapping(name: "timeStamp", value: .keyPath("timeStamp")),
///         PropertyMapping(name: "memo", value: .constant(.string("Hello"))),
///     ])
/// let archived = EntityMapping(
///     name: "DoneTasks", kind: .transform,
///     sourceEntityName: "Task", destinationEntityName: "ArchivedTask",
///     sourcePredicate: try Predicate(format: "done == YES"))
/// ```
public struct EntityMapping: Sendable {
    /// A name unique in its ``MappingModel``: what
    /// `destinationInstances(forEntityMapping:sourceInstances:)` looks mappings up by.
    public var name: String
    /// What the mapping does.
    public var kind: EntityMappingKind
    /// The source entity, or nil for an added entity.
    public var sourceEntityName: String?
    /// The destination entity, or nil for a removed entity.
    public var destinationEntityName: String?
    /// How each destination attribute gets its value. A stored destination attribute
    /// without a mapping gets its default value (or none).
    public var attributeMappings: [PropertyMapping]
    /// How each destination relationship gets its objects. A destination relationship
    /// without a mapping starts empty.
    public var relationshipMappings: [PropertyMapping]
    /// Only the source objects this predicate accepts are migrated by this mapping
    /// (nil: all of them).
    public var sourcePredicate: Predicate?
    /// Makes the policy that runs this mapping's hooks, fresh for each migration (nil:
    /// the default ``EntityMigrationPolicy``).
    public var policyFactory: (@Sendable () -> EntityMigrationPolicy)?
    /// Free values a policy can read, as Core Data's `userInfo`.
    public var userInfo: [String: Value]

    /// Creates an entity mapping.
    ///
    /// - Parameters:
    ///   - name: Unique in the mapping model.
    ///   - kind: What the mapping does.
    ///   - sourceEntityName: The source entity (nil for `.add`).
    ///   - destinationEntityName: The destination entity (nil for `.remove`).
    ///   - attributeMappings: One per destination attribute to fill.
    ///   - relationshipMappings: One per destination relationship to fill.
    ///   - sourcePredicate: Which source objects to migrate; nil for all.
    ///   - policy: Makes the policy object, e.g. `{ PhotoSplitPolicy() }`.
    ///   - userInfo: Values for the policy.
    public init(
        name: String,
        kind: EntityMappingKind,
        sourceEntityName: String?,
        destinationEntityName: String?,
        attributeMappings: [PropertyMapping] = [],
        relationshipMappings: [PropertyMapping] = [],
        sourcePredicate: Predicate? = nil,
        policy: (@Sendable () -> EntityMigrationPolicy)? = nil,
        userInfo: [String: Value] = [:]
    ) {
        self.name = name
        self.kind = kind
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.sourcePredicate = sourcePredicate
        self.policyFactory = policy
        self.userInfo = userInfo
    }

    /// A new policy object for one migration: the mapping's own, or the default one.
    package func makePolicy() -> EntityMigrationPolicy {
        policyFactory?() ?? EntityMigrationPolicy()
    }

    /// Whether the mapping names a policy of its own.
    package var hasCustomPolicy: Bool { policyFactory != nil }

    /// Whether a relationship mapping reads what another entity mapping made
    /// (``MappingExpression/destinationInstances(of:entityMapping:)``): such a mapping
    /// also runs the relationship pass, when every mapping has made its objects.
    var mapsRelationshipsThroughOtherMappings: Bool {
        relationshipMappings.contains {
            if case .destinationInstances = $0.valueExpression { return true }
            return false
        }
    }

    /// Whether the manager runs this mapping's relationship pass.
    var needsRelationshipPass: Bool { hasCustomPolicy || mapsRelationshipsThroughOtherMappings }

    /// The attribute mapping for a destination attribute, if any.
    public func attributeMapping(named name: String) -> PropertyMapping? {
        attributeMappings.first { $0.name == name }
    }

    /// The relationship mapping for a destination relationship, if any.
    package func relationshipMapping(named name: String) -> PropertyMapping? {
        relationshipMappings.first { $0.name == name }
    }
}
