/// One element of an entity's `properties` array in a JSON model file
/// (docs/MODEL.md, "Properties"): an attribute or a relationship, told apart by `kind`.
///
/// Values (defaults, range bounds) are kept as JSON scalars until the entity is
/// known, so that an error about them can name the entity and the property.
struct ModelFileProperty: Codable {
    /// The property with its values not yet read (attributes carry them below).
    var property: PropertyDescription
    var defaultValue: ModelFileScalar?
    var minimum: ModelFileScalar?
    var maximum: ModelFileScalar?

    static let attributeKeys: Set<String> = [
        "kind", "name", "type", "optional", "default", "transient", "externalStorage",
        "indexed", "unique", "renamingIdentifier", "minimum", "maximum", "minimumLength",
        "maximumLength", "pattern", "valueTransformerName", "preserveValueOnDeletion",
    ]
    static let relationshipKeys: Set<String> = [
        "kind", "name", "destination", "inverse", "toMany", "ordered", "optional",
        "deleteRule", "minimumCount", "maximumCount", "renamingIdentifier", "waivesInverse",
    ]

    init(_ property: PropertyDescription) {
        self.property = property
        if case .attribute(let attribute) = property {
            defaultValue = attribute.defaultValue?.modelFileScalar
            minimum = attribute.minimumValue?.modelFileScalar
            maximum = attribute.maximumValue?.modelFileScalar
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ModelFileKey.self)
        let kind: String = try container.decode("kind")
        let name: String = try container.decode("name")
        switch kind {
        case "attribute":
            try ModelFileKey.rejectUnknown(in: container, known: Self.attributeKeys)
            property = .attribute(AttributeDescription(
                name: name,
                type: try container.decode("type"),
                isOptional: try container.decode("optional", default: false),
                isTransient: try container.decode("transient", default: false),
                allowsExternalStorage: try container.decode("externalStorage", default: false),
                isIndexed: try container.decode("indexed", default: false),
                isUnique: try container.decode("unique", default: false),
                renamingIdentifier: try container.decodeIfPresent("renamingIdentifier"),
                minimumLength: try container.decodeIfPresent("minimumLength"),
                maximumLength: try container.decodeIfPresent("maximumLength"),
                pattern: try container.decodeIfPresent("pattern"),
                valueTransformerName: try container.decodeIfPresent("valueTransformerName"),
                preserveValueOnDeletion: try container.decode("preserveValueOnDeletion", default: false)))
            defaultValue = try container.decodeIfPresent("default")
            minimum = try container.decodeIfPresent("minimum")
            maximum = try container.decodeIfPresent("maximum")
        case "relationship":
            try ModelFileKey.rejectUnknown(in: container, known: Self.relationshipKeys)
            property = .relationship(RelationshipDescription(
                name: name,
                destinationEntityName: try container.decode("destination"),
                inverseName: try container.decodeIfPresent("inverse"),
                isToMany: try container.decode("toMany", default: false),
                isOrdered: try container.decode("ordered", default: false),
                isOptional: try container.decode("optional", default: true),
                deleteRule: try container.decode("deleteRule", default: .nullify),
                minimumCount: try container.decodeIfPresent("minimumCount"),
                maximumCount: try container.decodeIfPresent("maximumCount"),
                renamingIdentifier: try container.decodeIfPresent("renamingIdentifier"),
                waivesInverse: try container.decode("waivesInverse", default: false)))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: ModelFileKey("kind"), in: container,
                debugDescription: "kind '\(kind)' is neither 'attribute' nor 'relationship'")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ModelFileKey.self)
        switch property {
        case .attribute(let attribute):
            try container.encode("attribute", "kind")
            try container.encode(attribute.name, "name")
            try container.encode(attribute.type, "type")
            try container.encode(attribute.isOptional, "optional", unless: false)
            try container.encodeIfPresent(defaultValue, "default")
            try container.encode(attribute.isTransient, "transient", unless: false)
            try container.encode(attribute.allowsExternalStorage, "externalStorage", unless: false)
            try container.encode(attribute.isIndexed, "indexed", unless: false)
            try container.encode(attribute.isUnique, "unique", unless: false)
            try container.encodeIfPresent(attribute.renamingIdentifier, "renamingIdentifier")
            try container.encodeIfPresent(minimum, "minimum")
            try container.encodeIfPresent(maximum, "maximum")
            try container.encodeIfPresent(attribute.minimumLength, "minimumLength")
            try container.encodeIfPresent(attribute.maximumLength, "maximumLength")
            try container.encodeIfPresent(attribute.pattern, "pattern")
            try container.encodeIfPresent(attribute.valueTransformerName, "valueTransformerName")
            try container.encode(attribute.preserveValueOnDeletion, "preserveValueOnDeletion", unless: false)
        case .relationship(let relationship):
            try container.encode("relationship", "kind")
            try container.encode(relationship.name, "name")
            try container.encode(relationship.destinationEntityName, "destination")
            try container.encodeIfPresent(relationship.inverseName, "inverse")
            try container.encode(relationship.isToMany, "toMany", unless: false)
            try container.encode(relationship.isOrdered, "ordered", unless: false)
            try container.encode(relationship.isOptional, "optional", unless: true)
            try container.encode(relationship.deleteRule, "deleteRule", unless: .nullify)
            try container.encodeIfPresent(relationship.minimumCount, "minimumCount")
            try container.encodeIfPresent(relationship.maximumCount, "maximumCount")
            try container.encodeIfPresent(relationship.renamingIdentifier, "renamingIdentifier")
            try container.encode(relationship.waivesInverse, "waivesInverse", unless: false)
        }
    }

    /// The property with its values read according to the attribute's type.
    ///
    /// - Throws: `invalidModel` naming `entity` and the property when a value does
    ///   not fit the attribute's type.
    func resolved(in entity: String) throws -> PropertyDescription {
        guard case .attribute(var attribute) = property else { return property }
        func read(_ scalar: ModelFileScalar?, _ label: String) throws -> Value? {
            guard let scalar else { return nil }
            do {
                return try Value(modelFile: scalar, as: attribute.type)
            } catch {
                throw ModelValidationError.property(
                    entity, attribute.name, "the \(label) is not valid: \(error.message)")
            }
        }
        attribute.defaultValue = try read(defaultValue, "default value")
        attribute.minimumValue = try read(minimum, "minimum value")
        attribute.maximumValue = try read(maximum, "maximum value")
        return .attribute(attribute)
    }
}
