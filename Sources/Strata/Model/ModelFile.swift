/// The top level of a JSON model file (docs/MODEL.md, "File"): a format version, the
/// model's version identifier and its entities.
struct ModelFile: Codable {
    /// The format this release reads and writes. Raise it only with a documented,
    /// incompatible change to docs/MODEL.md.
    static let currentFormatVersion = 1
    static let keys: Set<String> = ["formatVersion", "version", "entities", "fetchRequestTemplates"]

    var formatVersion: Int
    var version: String
    var entities: [ModelFileEntity]
    var fetchRequestTemplates: [ModelFileFetchRequestTemplate]

    init(_ model: ObjectModel) {
        formatVersion = Self.currentFormatVersion
        version = model.versionIdentifier
        entities = model.entities.map(ModelFileEntity.init)
        fetchRequestTemplates = model.fetchRequestTemplates.map(ModelFileFetchRequestTemplate.init)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ModelFileKey.self)
        try ModelFileKey.rejectUnknown(in: container, known: Self.keys)
        formatVersion = try container.decode("formatVersion")
        version = try container.decode("version")
        entities = try container.decode("entities")
        fetchRequestTemplates = try container.decode("fetchRequestTemplates", default: [])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ModelFileKey.self)
        try container.encode(formatVersion, "formatVersion")
        try container.encode(version, "version")
        try container.encode(entities, "entities")
        if !fetchRequestTemplates.isEmpty { try container.encode(fetchRequestTemplates, "fetchRequestTemplates") }
    }
}
