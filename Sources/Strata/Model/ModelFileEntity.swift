/// One element of the `entities` array in a JSON model file (docs/MODEL.md, "Entities").
struct ModelFileEntity: Codable {
    var name: String
    var isAbstract: Bool
    var parentName: String?
    var renamingIdentifier: String?
    var properties: [ModelFileProperty]

    static let keys: Set<String> = ["name", "abstract", "parent", "renamingIdentifier", "properties"]

    init(_ entity: EntityDescription) {
        name = entity.name
        isAbstract = entity.isAbstract
        parentName = entity.parentName
        renamingIdentifier = entity.renamingIdentifier
        properties = entity.declaredProperties.map(ModelFileProperty.init)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ModelFileKey.self)
        try ModelFileKey.rejectUnknown(in: container, known: Self.keys)
        name = try container.decode("name")
        isAbstract = try container.decode("abstract", default: false)
        parentName = try container.decodeIfPresent("parent")
        renamingIdentifier = try container.decodeIfPresent("renamingIdentifier")
        properties = try container.decode("properties", default: [])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ModelFileKey.self)
        try container.encode(name, "name")
        try container.encode(isAbstract, "abstract", unless: false)
        try container.encodeIfPresent(parentName, "parent")
        try container.encodeIfPresent(renamingIdentifier, "renamingIdentifier")
        try container.encode(properties, "properties")
    }

    /// The entity description, its values read.
    ///
    /// - Throws: `invalidModel` naming the entity and property when a value is invalid.
    func resolved() throws -> EntityDescription {
        EntityDescription(
            name: name,
            isAbstract: isAbstract,
            parentName: parentName,
            renamingIdentifier: renamingIdentifier,
            properties: try properties.map { try $0.resolved(in: name) })
    }
}
