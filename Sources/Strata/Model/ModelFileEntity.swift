/// One element of the `entities` array in a JSON model file (docs/MODEL.md, "Entities").
struct ModelFileEntity: Codable {
    var name: String
    var isAbstract: Bool
    var parentName: String?
    var renamingIdentifier: String?
    var properties: [ModelFileProperty]
    var fetchedProperties: [ModelFileFetchedProperty]
    var uniquenessConstraints: [[String]]

    static let keys: Set<String> = ["name", "abstract", "parent", "renamingIdentifier", "properties", "fetchedProperties", "uniquenessConstraints"]

    init(_ entity: EntityDescription) {
        name = entity.name
        isAbstract = entity.isAbstract
        parentName = entity.parentName
        renamingIdentifier = entity.renamingIdentifier
        properties = entity.declaredProperties.map(ModelFileProperty.init)
        fetchedProperties = entity.fetchedProperties.map(ModelFileFetchedProperty.init)
        uniquenessConstraints = entity.uniquenessConstraints
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ModelFileKey.self)
        try ModelFileKey.rejectUnknown(in: container, known: Self.keys)
        name = try container.decode("name")
        isAbstract = try container.decode("abstract", default: false)
        parentName = try container.decodeIfPresent("parent")
        renamingIdentifier = try container.decodeIfPresent("renamingIdentifier")
        properties = try container.decode("properties", default: [])
        fetchedProperties = try container.decode("fetchedProperties", default: [])
        uniquenessConstraints = try container.decode("uniquenessConstraints", default: [])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ModelFileKey.self)
        try container.encode(name, "name")
        try container.encode(isAbstract, "abstract", unless: false)
        try container.encodeIfPresent(parentName, "parent")
        try container.encodeIfPresent(renamingIdentifier, "renamingIdentifier")
        try container.encode(properties, "properties")
        if !fetchedProperties.isEmpty { try container.encode(fetchedProperties, "fetchedProperties") }
        try container.encode(uniquenessConstraints, "uniquenessConstraints", unless: [])
    }

    /// The entity description, its values read.
    ///
    /// - Throws: `invalidModel` naming the entity and property when a value is invalid.
    func resolved() throws -> EntityDescription {
        var entity = EntityDescription(
            name: name,
            isAbstract: isAbstract,
            parentName: parentName,
            renamingIdentifier: renamingIdentifier,
            properties: try properties.map { try $0.resolved(in: name) },
            uniquenessConstraints: uniquenessConstraints)
        entity.fetchedProperties = try fetchedProperties.map { try $0.resolved(in: name) }
        return entity
    }
}
