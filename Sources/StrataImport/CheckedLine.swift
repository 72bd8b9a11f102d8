/// A line of an import as its first pass keeps it: the entity it names and the names
/// (`@id`, `@ref`) others may refer to it by. ``JSONLineDecoder/check(_:)`` makes them.
package struct CheckedLine: Sendable, Equatable {
    /// The entity's name.
    package var entityName: String
    /// The line's `@id` then its `@ref`, where given.
    package var names: [String]

    package init(entityName: String, names: [String]) {
        self.entityName = entityName
        self.names = names
    }
}
