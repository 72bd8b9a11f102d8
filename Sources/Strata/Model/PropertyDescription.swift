/// A property of an entity: an attribute or a relationship.
///
/// ```swift
/// switch entity.property(named: "department") {
/// case .relationship(let relationship)?: print(relationship.destinationEntityName)
/// case .attribute(let attribute)?: print(attribute.type)
/// case nil: print("no such property")
/// }
/// ```
public enum PropertyDescription: Sendable, Hashable {
    /// A value-typed property.
    case attribute(AttributeDescription)
    /// A reference to other objects.
    case relationship(RelationshipDescription)

    /// The property's name.
    public var name: String {
        switch self {
        case .attribute(let attribute): attribute.name
        case .relationship(let relationship): relationship.name
        }
    }

    /// The property's name in the previous model version, when it was renamed.
    public var renamingIdentifier: String? {
        switch self {
        case .attribute(let attribute): attribute.renamingIdentifier
        case .relationship(let relationship): relationship.renamingIdentifier
        }
    }

    /// The attribute, when this property is one.
    public var attribute: AttributeDescription? {
        if case .attribute(let attribute) = self { return attribute }
        return nil
    }

    /// The relationship, when this property is one.
    public var relationship: RelationshipDescription? {
        if case .relationship(let relationship) = self { return relationship }
        return nil
    }
}
