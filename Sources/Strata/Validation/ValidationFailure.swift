/// One rule one object broke, as a failed save reports it.
public struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
    public var object: ObjectID
    /// The property, or nil for a rule about the whole object.
    public var property: String?
    /// The rule: "required", "type", "minimum", "maximum", "minimumLength",
    /// "maximumLength", "pattern", "minimumCount", "maximumCount", "unique".
    public var rule: String
    public var message: String

    public var description: String {
        "\(object)\(property.map { ".\($0)" } ?? ""): \(rule): \(message)"
    }
}
