/// A key path resolved against a model: where it ends and whether it passes
/// through a to-many relationship.
struct PredicateModelKeyPath {
    /// What the last component names.
    enum Terminal {
        case attribute(AttributeDescription)
        case relationship(RelationshipDescription)
    }

    /// The key path as written.
    var path: String
    /// The entity the key path starts from.
    var entityName: String
    /// The entity that declares the last component.
    var terminalEntityName: String
    var terminal: Terminal
    /// The first to-many relationship on the way (the last component included), if any.
    var toManyRelationship: String?

    var isMany: Bool { toManyRelationship != nil }

    /// Resolves `path` from `entity`, component by component.
    ///
    /// - Throws: `StrataError` `.unknownKeyPath` (context `entity`, `keyPath`) for a
    ///   component the entity does not have, a component after an attribute, or a
    ///   relationship whose destination the model does not hold.
    static func resolve(_ path: String, from entity: EntityDescription, in model: ObjectModel) throws -> PredicateModelKeyPath {
        // Most key paths are one name, and split (generic, through a closure) would
        // weigh on validating every fetch's predicate.
        let components = path.utf8.contains(UInt8(ascii: ".")) ? path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) : [path]
        let shown = quoted(path)
        var current = entity
        var toMany: String?
        for (position, key) in components.enumerated() {
            let isLast = position == components.count - 1
            if let attribute = current.attributesByName[key] {
                guard isLast else {
                    throw StrataError(
                        .unknownKeyPath,
                        "\(current.name).\(key) is an attribute: the key path '\(shown)' cannot continue past it",
                        context: ["entity": current.name, "keyPath": shown]
                    )
                }
                return PredicateModelKeyPath(
                    path: path, entityName: entity.name, terminalEntityName: current.name,
                    terminal: .attribute(attribute), toManyRelationship: toMany)
            }
            guard let relationship = current.relationshipsByName[key] else {
                throw StrataError(
                    .unknownKeyPath,
                    "\(current.name) has no property '\(key)' (in key path '\(shown)')",
                    context: ["entity": current.name, "keyPath": shown]
                )
            }
            if relationship.isToMany, toMany == nil { toMany = "\(current.name).\(key)" }
            if isLast {
                return PredicateModelKeyPath(
                    path: path, entityName: entity.name, terminalEntityName: current.name,
                    terminal: .relationship(relationship), toManyRelationship: toMany)
            }
            guard let destination = model.entity(named: relationship.destinationEntityName) else {
                throw StrataError(
                    .unknownKeyPath,
                    "\(current.name).\(key) leads to '\(relationship.destinationEntityName)', which the model does not have (in key path '\(shown)')",
                    context: ["entity": current.name, "keyPath": shown]
                )
            }
            current = destination
        }
        // Only an empty path gets here (split always yields one component).
        throw StrataError(.unknownKeyPath, "An empty key path names no property of \(entity.name)", context: ["entity": entity.name, "keyPath": path])
    }

    /// `path` as errors quote it: whole up to 200 characters, else its first 200 and
    /// an ellipsis, so a key path of 100,000 components makes a short message.
    static func quoted(_ path: String) -> String {
        path.utf8.count <= 200 ? path : String(path.prefix(200)) + "…"
    }
}
