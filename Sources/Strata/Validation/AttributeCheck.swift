/// What a save's validation needs of one stored attribute, worked out once per entity
/// (``StoreSchema/EntityShape/attributeChecks``). A class, so that walking an entity's
/// list per saved object retains one reference per attribute instead of copying each
/// whole `AttributeDescription` (two fifths of validation's time).
final class AttributeCheck: Sendable {
    let name: String
    let type: AttributeType
    let isOptional: Bool
    /// The attribute's field number in the current layout.
    let number: Int?
    let minimumValue: Value?
    let maximumValue: Value?
    let minimumLength: Int?
    let maximumLength: Int?
    let pattern: String?
    /// Whether a length rule is declared (a string's characters are counted only then).
    var hasLengthRule: Bool { minimumLength != nil || maximumLength != nil }

    init(_ attribute: AttributeDescription, number: Int?) {
        name = attribute.name
        type = attribute.type
        isOptional = attribute.isOptional
        self.number = number
        minimumValue = attribute.minimumValue
        maximumValue = attribute.maximumValue
        minimumLength = attribute.minimumLength
        maximumLength = attribute.maximumLength
        pattern = attribute.pattern
    }
}
