/// A line of an import as its first pass keeps it: the entity it names and the names
/// (`@id`, `@ref`) others may refer to it by. ``JSONLineDecoder/check(_:)`` makes them.
public struct CheckedLine: Sendable, Equatable {
    /// The entity's name.
    public var entityName: String
    /// The line's `@id` then its `@ref`, where given.
    public var names: [String]

    public init(entityName: String, names: [String]) {
        self.entityName = entityName
        self.names = names
    }
}
