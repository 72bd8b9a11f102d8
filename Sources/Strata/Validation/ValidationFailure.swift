/// One rule one object broke. A failed save names each in its error's message and
/// `objects` context, a failed migration the first twenty in its message; the value
/// itself stays inside the package.
package struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
    package var object: ObjectID
    /// The property, or nil for a rule about the whole object.
    package var property: String?
    /// The rule: "required", "type", "minimum", "maximum", "minimumLength",
    /// "maximumLength", "pattern", "minimumCount", "maximumCount", "unique".
    package var rule: String
    package var message: String

    package var description: String {
        "\(object)\(property.map { ".\($0)" } ?? ""): \(rule): \(message)"
    }
}
