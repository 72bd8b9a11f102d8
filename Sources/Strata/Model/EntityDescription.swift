/// One entity of a model: a kind of object, its properties, and its place in the
/// inheritance tree, as Core Data's `NSEntityDescription` describes one.
///
/// An entity's ``properties`` include the ones it inherits: a `Manager` whose parent is
/// `Employee` has `Employee`'s `name` and `salary` before its own `reports`. The
/// inherited view, ``subentityNames`` and ``ancestorNames`` are filled in by the
/// ``ObjectModel`` that holds the entity; an entity built alone sees only its own
/// properties until it is part of a model.
///
/// ```swift
/// let model = try ObjectModel(version: "1") {
///     Entity("Employee") { Attribute("name", .string) }
///     Entity("Manager", parent: "Employee") { Attribute("budget", .double) }
/// }
/// let manager = model.entity(named: "Manager")
/// manager?.attributesByName.keys.sorted()  // ["budget", "name"]
/// manager?.isKind(of: "Employee")           // true
/// ```
public struct EntityDescription: Sendable, Hashable {
    /// The entity's name: an ASCII identifier, unique in the model.
    public var name: String
    /// Whether the entity has no instances of its own, only of its sub-entities.
    public var isAbstract: Bool
    /// The name of the entity this one inherits from, if any.
    public var parentName: String?
    /// The entity's name in the previous model version, when it was renamed: what
    /// lightweight migration matches it by.
    public var renamingIdentifier: String?
    /// The compound uniqueness constraints this entity declares (Core Data's
    /// `uniquenessConstraints`, SwiftData's `#Unique`): each is a list of attribute
    /// names whose values, taken together, no two objects of the entity (and its
    /// sub-entities) may share — `[["firstName", "lastName"]]`. A constraint of one
    /// attribute the entity declares is the same as that attribute's
    /// ``AttributeDescription/isUnique``, and the model stores it that way. Names may
    /// be inherited attributes; relationships and transient attributes are refused.
    public var uniquenessConstraints: [[String]]
    /// The properties this entity declares itself, in declaration order. Changing them
    /// resets ``properties`` to the same list until the entity is placed in a model.
    public var declaredProperties: [PropertyDescription] {
        didSet { resolve(inherited: []) }
    }

    /// Every property of the entity: the inherited ones first (root ancestor first),
    /// then the declared ones, each group in declaration order.
    public internal(set) var properties: [PropertyDescription]
    /// The attributes among ``properties``, by name (inherited included).
    public internal(set) var attributesByName: [String: AttributeDescription]
    /// The relationships among ``properties``, by name (inherited included).
    public internal(set) var relationshipsByName: [String: RelationshipDescription]
    /// The direct sub-entities' names, sorted.
    public internal(set) var subentityNames: [String]
    /// Every entity that inherits from this one, directly or not, sorted by name.
    public internal(set) var allSubentityNames: [String]
    /// The chain of ancestors, nearest first: `["Employee", "Person"]` for a `Manager`.
    public internal(set) var ancestorNames: [String]
    /// The fetched properties this entity declares: read-only, predicate-defined
    /// to-manys that store nothing (``FetchedPropertyDescription``). Sub-entities
    /// inherit them (``ObjectModel/fetchedProperty(named:of:)``).
    public var fetchedProperties: [FetchedPropertyDescription] = []

    /// Creates an entity description.
    ///
    /// - Parameters:
    ///   - name: The entity's name, an ASCII identifier.
    ///   - isAbstract: Whether it has no instances of its own. Default `false`.
    ///   - parentName: The entity it inherits from.
    ///   - renamingIdentifier: Its name in the previous model version.
    ///   - properties: The properties it declares, in order.
    ///   - uniquenessConstraints: Compound uniqueness constraints, each a list of
    ///     attribute names (``uniquenessConstraints``).
    public init(
        name: String,
        isAbstract: Bool = false,
        parentName: String? = nil,
        renamingIdentifier: String? = nil,
        properties: [PropertyDescription] = [],
        uniquenessConstraints: [[String]] = []
    ) {
        self.name = name
        self.isAbstract = isAbstract
        self.parentName = parentName
        self.renamingIdentifier = renamingIdentifier
        self.uniquenessConstraints = uniquenessConstraints
        self.declaredProperties = properties
        self.properties = []
        self.attributesByName = [:]
        self.relationshipsByName = [:]
        self.subentityNames = []
        self.allSubentityNames = []
        self.ancestorNames = []
        resolve(inherited: [])
    }

    /// The property with this name, inherited or declared.
    public func property(named name: String) -> PropertyDescription? {
        if let attribute = attributesByName[name] { return .attribute(attribute) }
        if let relationship = relationshipsByName[name] { return .relationship(relationship) }
        return nil
    }

    /// The attributes, inherited first, in declaration order.
    public var attributes: [AttributeDescription] { properties.compactMap(\.attribute) }

    /// The relationships, inherited first, in declaration order.
    public var relationships: [RelationshipDescription] { properties.compactMap(\.relationship) }

    /// The attributes that are written to the store: all but the transient ones.
    public var storedAttributes: [AttributeDescription] { attributes.filter { !$0.isTransient } }

    /// Whether this entity is the named one or inherits from it, like
    /// `NSEntityDescription.isKindOf(entity:)`.
    public func isKind(of entityName: String) -> Bool {
        name == entityName || ancestorNames.contains(entityName)
    }

    /// Sets the inherited view; the model calls it with the ancestors' properties.
    mutating func resolve(inherited: [PropertyDescription]) {
        properties = inherited + declaredProperties
        var attributes: [String: AttributeDescription] = [:]
        var relationships: [String: RelationshipDescription] = [:]
        for property in properties {
            switch property {
            case .attribute(let attribute): attributes[attribute.name] = attribute
            case .relationship(let relationship): relationships[relationship.name] = relationship
            }
        }
        attributesByName = attributes
        relationshipsByName = relationships
    }
}
