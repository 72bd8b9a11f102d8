/// A sort key in a model file: `{"keyPath": "salary", "ascending": false}`, with
/// optional `caseInsensitive` and `diacriticInsensitive` flags (docs/MODEL.md,
/// "Fetched properties and fetch request templates").
struct ModelFileSortKey: Codable {
    var sortKey: SortKey

    static let keys: Set<String> = ["keyPath", "ascending", "caseInsensitive", "diacriticInsensitive"]

    init(_ sortKey: SortKey) { self.sortKey = sortKey }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ModelFileKey.self)
        try ModelFileKey.rejectUnknown(in: container, known: Self.keys)
        var options: StringComparisonOptions = []
        if try container.decode("caseInsensitive", default: false) { options.insert(.caseInsensitive) }
        if try container.decode("diacriticInsensitive", default: false) { options.insert(.diacriticInsensitive) }
        sortKey = SortKey(try container.decode("keyPath"), ascending: try container.decode("ascending", default: true), options: options)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ModelFileKey.self)
        try container.encode(sortKey.keyPath, "keyPath")
        try container.encode(sortKey.ascending, "ascending", unless: true)
        try container.encode(sortKey.options.contains(.caseInsensitive), "caseInsensitive", unless: false)
        try container.encode(sortKey.options.contains(.diacriticInsensitive), "diacriticInsensitive", unless: false)
    }
}

/// A fetched property in a model file's entity: `name`, `destination`, `predicate`
/// (format string) and optional `sortKeys`. The predicate is parsed when the entity
/// is resolved, so that an error names the entity and the property.
struct ModelFileFetchedProperty: Codable {
    var name: String
    var destination: String
    var predicate: String
    var sortKeys: [ModelFileSortKey]

    static let keys: Set<String> = ["name", "destination", "predicate", "sortKeys"]

    init(_ fetched: FetchedPropertyDescription) {
        name = fetched.name
        destination = fetched.destinationEntityName
        predicate = fetched.predicate.description
        sortKeys = fetched.sortKeys.map(ModelFileSortKey.init)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ModelFileKey.self)
        try ModelFileKey.rejectUnknown(in: container, known: Self.keys)
        name = try container.decode("name")
        destination = try container.decode("destination")
        predicate = try container.decode("predicate")
        sortKeys = try container.decode("sortKeys", default: [])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ModelFileKey.self)
        try container.encode(name, "name")
        try container.encode(destination, "destination")
        try container.encode(predicate, "predicate")
        if !sortKeys.isEmpty { try container.encode(sortKeys, "sortKeys") }
    }

    /// The description, its predicate parsed.
    ///
    /// - Throws: `invalidModel` naming `entity` and the property when the predicate
    ///   does not parse.
    func resolved(in entity: String) throws -> FetchedPropertyDescription {
        let parsed: Predicate
        do {
            parsed = try Predicate(format: predicate)
        } catch let error as StrataError {
            throw ModelValidationError.property(entity, name, "the predicate does not parse: \(error.message)")
        }
        return FetchedPropertyDescription(name: name, destinationEntityName: destination, predicate: parsed,
                                          sortKeys: sortKeys.map(\.sortKey))
    }
}

/// A fetch request template at the top of a model file: `name`, `entity`, optional
/// `predicate` (format string, `$variables` allowed) and `sortKeys`.
struct ModelFileFetchRequestTemplate: Codable {
    var name: String
    var entity: String
    var predicate: String?
    var sortKeys: [ModelFileSortKey]

    static let keys: Set<String> = ["name", "entity", "predicate", "sortKeys"]

    init(_ template: FetchRequestTemplate) {
        name = template.name
        entity = template.entityName
        predicate = template.predicate?.description
        sortKeys = template.sortKeys.map(ModelFileSortKey.init)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ModelFileKey.self)
        try ModelFileKey.rejectUnknown(in: container, known: Self.keys)
        name = try container.decode("name")
        entity = try container.decode("entity")
        predicate = try container.decodeIfPresent("predicate")
        sortKeys = try container.decode("sortKeys", default: [])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ModelFileKey.self)
        try container.encode(name, "name")
        try container.encode(entity, "entity")
        try container.encodeIfPresent(predicate, "predicate")
        if !sortKeys.isEmpty { try container.encode(sortKeys, "sortKeys") }
    }

    /// The template, its predicate parsed.
    ///
    /// - Throws: `invalidModel` naming the template when the predicate does not parse.
    func resolved() throws -> FetchRequestTemplate {
        var parsed: Predicate?
        if let predicate {
            do {
                parsed = try Predicate(format: predicate)
            } catch let error as StrataError {
                throw StrataError(.invalidModel, "Fetch request template '\(ModelName.shown(name))': the predicate does not parse: \(error.message)",
                                  context: ["template": ModelName.shown(name)])
            }
        }
        return FetchRequestTemplate(name: name, entityName: entity, predicate: parsed, sortKeys: sortKeys.map(\.sortKey))
    }
}
