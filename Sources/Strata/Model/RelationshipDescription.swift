/// One relationship of an entity: its destination, inverse, cardinality and delete
/// rule, as Core Data's `NSRelationshipDescription` describes one.
///
/// Every relationship names its inverse, and the inverse names it back, unless the
/// missing inverse is waived explicitly with ``waivesInverse``: Core Data only warns
/// about a missing inverse, and the graph then silently drifts out of sync.
///
/// ```swift
/// let employees = RelationshipDescription(
///     name: "employees", destinationEntityName: "Employee", inverseName: "department",
///     isToMany: true, deleteRule: .cascade)
/// ```
///
/// The name, destination, inverse name, to-many, ordered and optional flags count in
/// ``ObjectModel/versionHash``; the delete rule, counts and renaming identifier do not.
public struct RelationshipDescription: Sendable, Hashable {
    /// The relationship's name: an ASCII identifier, unique in its entity and ancestors.
    public var name: String
    /// The name of the entity the relationship points to.
    public var destinationEntityName: String
    /// The name of the inverse relationship on the destination entity, or `nil` when
    /// the missing inverse is waived (``waivesInverse``).
    public var inverseName: String?
    /// Whether the relationship holds many objects rather than at most one.
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its objects in an order (an ordered set).
    public var isOrdered: Bool
    /// Whether a to-one relationship may be nil. For a to-many relationship, `false`
    /// means at least one object when ``minimumCount`` is not set.
    public var isOptional: Bool
    /// What deleting the source object does to the destination objects.
    public var deleteRule: DeleteRule
    /// The fewest objects a to-many relationship may hold, checked at save.
    public var minimumCount: Int?
    /// The most objects a to-many relationship may hold, checked at save.
    public var maximumCount: Int?
    /// The relationship's name in the previous model version, when it was renamed.
    public var renamingIdentifier: String?
    /// Whether this relationship deliberately has no inverse. Without it, a missing
    /// inverse makes the model invalid.
    public var waivesInverse: Bool

    /// Creates a relationship description.
    ///
    /// - Parameters:
    ///   - name: The relationship's name, an ASCII identifier.
    ///   - destinationEntityName: The entity it points to.
    ///   - inverseName: The inverse relationship on the destination, or `nil` with
    ///     `waivesInverse: true`.
    ///   - isToMany: To-many rather than to-one. Default `false`.
    ///   - isOrdered: Ordered (to-many only). Default `false`.
    ///   - isOptional: May be nil or empty. Default `true`, as in Core Data.
    ///   - deleteRule: Default ``DeleteRule/nullify``.
    ///   - minimumCount: Fewest objects (to-many only).
    ///   - maximumCount: Most objects (to-many only).
    ///   - renamingIdentifier: The name in the previous model version.
    ///   - waivesInverse: Deliberately no inverse. Default `false`.
    public init(
        name: String,
        destinationEntityName: String,
        inverseName: String?,
        isToMany: Bool = false,
        isOrdered: Bool = false,
        isOptional: Bool = true,
        deleteRule: DeleteRule = .nullify,
        minimumCount: Int? = nil,
        maximumCount: Int? = nil,
        renamingIdentifier: String? = nil,
        waivesInverse: Bool = false
    ) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.deleteRule = deleteRule
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
        self.renamingIdentifier = renamingIdentifier
        self.waivesInverse = waivesInverse
    }
}
