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
/// ```
public struct Entity: Sendable, Hashable {
    /// The description this declaration stands for.
    public var entityDescription: EntityDescription

    /// Declares an entity.
    ///
    /// - Parameters:
    ///   - name: The entity's name, an ASCII identifier.
    ///   - parent: The entity it inherits properties from.
    ///   - abstract: Whether it has no instances of its own. Default `false`.
    ///   - properties: Its ``Attribute`` and ``Relationship`` declarations.
    public init(
        _ name: String,
        parent: String? = nil,
        abstract: Bool = false,
        @PropertiesBuilder properties: () -> [PropertyDescription] = { [] }
    ) {
        entityDescription = EntityDescription(
            name: name, isAbstract: abstract, parentName: parent, properties: properties())
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

    /// The entity under the name it had in the previous model version, so that
    /// lightweight migration carries its objects over.
    public func renamed(from previousName: String) -> Entity {
        var copy = self
        copy.entityDescription.renamingIdentifier = previousName
        return copy
    }
}
