/// The result builder behind `Entity("Name") { … }`: collects ``Attribute`` and
/// ``Relationship`` declarations, in order, with `if`, `for` and `switch` allowed.
///
/// A list of properties can be shared between entities, which is how duplicated
/// fields are declared once:
///
/// ```swift
/// let noteFields: [PropertyDescription] = [
///     .attribute(AttributeDescription(name: "title", type: .string)),
///     .attribute(AttributeDescription(name: "rating", type: .int16)),
/// ]
/// Entity("WineNote") { noteFields; Attribute("grape", .string) }
/// ```
@resultBuilder
public enum PropertiesBuilder {
    /// One attribute declaration.
    public static func buildExpression(_ attribute: Attribute) -> [PropertyDescription] {
        [.attribute(attribute.attributeDescription)]
    }
    /// One relationship declaration.
    public static func buildExpression(_ relationship: Relationship) -> [PropertyDescription] {
        [.relationship(relationship.relationshipDescription)]
    }
    /// An attribute description built in code.
    public static func buildExpression(_ attribute: AttributeDescription) -> [PropertyDescription] {
        [.attribute(attribute)]
    }
    /// A relationship description built in code.
    public static func buildExpression(_ relationship: RelationshipDescription) -> [PropertyDescription] {
        [.relationship(relationship)]
    }
    /// A property description built in code.
    public static func buildExpression(_ property: PropertyDescription) -> [PropertyDescription] {
        [property]
    }
    /// Properties assembled elsewhere (shared fields).
    public static func buildExpression(_ properties: [PropertyDescription]) -> [PropertyDescription] {
        properties
    }
    /// Joins the statements of a block.
    public static func buildBlock(_ parts: [PropertyDescription]...) -> [PropertyDescription] {
        parts.flatMap { $0 }
    }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [PropertyDescription]?) -> [PropertyDescription] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [PropertyDescription]) -> [PropertyDescription] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [PropertyDescription]) -> [PropertyDescription] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[PropertyDescription]]) -> [PropertyDescription] {
        parts.flatMap { $0 }
    }
}
