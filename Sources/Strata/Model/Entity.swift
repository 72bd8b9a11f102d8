/// An entity declaration in the model DSL: a name, optionally a parent and the
/// abstract flag, and its properties in a ``PropertiesBuilder`` block.
///
/// ```swift
/// Entity("Person", abstract: true) {
///     Attribute("name", .string)
/// }
/// Entity("Employee", parent: "Person") {
///     Attribute("salary", .double, default: .double(0))
/// }
/// Entity("Todo") { Attribute("title", .string) }
///     .renamed(from: "Task")
/// Entity("Person", uniquenessConstraints: [["firstName", "lastName"]]) {
///     Attribute("firstName", .string)
///     Attribute("lastName", .string)
/// }
/// ```
public struct Entity: Sendable, Hashable {
    /// The description this declaration stands for.
    package var entityDescription: EntityDescription

    /// Declares an entity.
    ///
    /// - Parameters:
    ///   - name: The entity's name, an ASCII identifier.
    ///   - parent: The entity it inherits properties from.
    ///   - abstract: Whether it has no instances of its own. Default `false`.
    ///   - uniquenessConstraints: Compound uniqueness constraints, each a list of
    ///     attribute names whose values together must be unique (Core Data's
    ///     `uniquenessConstraints`, SwiftData's `#Unique`).
    ///   - properties: Its ``Attribute`` and ``Relationship`` declarations.
    public init(
        _ name: String,
        parent: String? = nil,
        abstract: Bool = false,
        uniquenessConstraints: [[String]] = [],
        @PropertiesBuilder properties: () -> [PropertyDescription] = { [] }
    ) {
        entityDescription = EntityDescription(
            name: name, isAbstract: abstract, parentName: parent, properties: properties(),
            uniquenessConstraints: uniquenessConstraints)
    }

    /// Wraps an entity description built in code.
    public init(_ description: EntityDescription) {
        entityDescription = description
    }

    /// The entity with these fetched properties added to its own: read-only to-manys
    /// defined by a predicate, evaluated when read (``ManagedObject/fetchedObjects(_:)``).
    public func fetchedProperties(_ properties: FetchedProperty...) -> Entity {
        var copy = self
        copy.entityDescription.fetchedProperties += properties.map(\.fetchedPropertyDescription)
        return copy
    }

    /// The entity with one more uniqueness constraint: no two of its objects may share
    /// the values of these attributes taken together, as SwiftData's
    /// `#Unique<Person>([\.firstName, \.lastName])`.
    ///
    /// ```swift
    /// Entity("Person") { Attribute("firstName", .string); Attribute("lastName", .string) }
    ///     .unique("firstName", "lastName")
    /// ```
    public func unique(_ attributes: String...) -> Entity {
        var copy = self
        copy.entityDescription.uniquenessConstraints.append(attributes)
        return copy
    }

    /// The entity under the name it had in the previous model version, so that
    /// lightweight migration carries its objects over.
    public func renamed(from previousName: String) -> Entity {
        var copy = self
        copy.entityDescription.renamingIdentifier = previousName
        return copy
    }
}
