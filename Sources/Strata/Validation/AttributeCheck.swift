import Foundation

/// What checking a value of one attribute needs, worked out once per entity (a save's
/// validation: ``StoreSchema/EntityShape/attributeChecks``) or once per batch (a batch
/// insert). A class, so that walking an entity's list per object retains one reference
/// per attribute instead of copying each whole `AttributeDescription`; its pattern is
/// compiled once, not per value checked.
final class AttributeCheck: Sendable {
    let name: String
    let type: AttributeType
    let isOptional: Bool
    let isTransient: Bool
    let defaultValue: Value?
    /// The attribute's field number in the layout it was made for; nil for a transient.
    let number: Int?
    let minimumValue: Value?
    let maximumValue: Value?
    let minimumLength: Int?
    let maximumLength: Int?
    let pattern: String?
    /// `pattern` anchored and compiled; nil without one, or when it does not compile
    /// (then no value matches it).
    private let regex: NSRegularExpression?
    /// Whether any value rule (range, length, pattern) is declared.
    let hasRules: Bool
    /// Whether a length rule is declared (a string's characters are counted only then).
    var hasLengthRule: Bool { minimumLength != nil || maximumLength != nil }

    init(_ attribute: AttributeDescription, number: Int?) {
        name = attribute.name
        type = attribute.type
        isOptional = attribute.isOptional
        isTransient = attribute.isTransient
        defaultValue = attribute.defaultValue
        self.number = number
        minimumValue = attribute.minimumValue
        maximumValue = attribute.maximumValue
        minimumLength = attribute.minimumLength
        maximumLength = attribute.maximumLength
        pattern = attribute.pattern
        regex = attribute.pattern.flatMap { try? NSRegularExpression(pattern: "^(?:" + $0 + ")$") }
        hasRules = minimumValue != nil || maximumValue != nil || minimumLength != nil || maximumLength != nil || pattern != nil
    }

    /// The rules `value` (not null, of the attribute's type) breaks, in the order they
    /// are checked: minimum, maximum, minimumLength, maximumLength, pattern, each with
    /// its message. Save validation reports them all; a batch insert the first.
    func brokenRules(_ value: Value) -> [(rule: String, message: String)] {
        guard hasRules else { return [] }
        var broken: [(rule: String, message: String)] = []
        if let minimum = minimumValue, SortKey.totalOrder(value, minimum) == .orderedAscending {
            broken.append(("minimum", "\(value) is below the minimum \(minimum)"))
        }
        if let maximum = maximumValue, SortKey.totalOrder(value, maximum) == .orderedDescending {
            broken.append(("maximum", "\(value) is above the maximum \(maximum)"))
        }
        // Counting a string's characters walks it: only when a length rule asks.
        let length: Int? = switch value {
        case .string(let s) where hasLengthRule: s.count
        case .binary(let d): d.count
        default: nil
        }
        if let length {
            if let minimum = minimumLength, length < minimum { broken.append(("minimumLength", "length \(length) is below \(minimum)")) }
            if let maximum = maximumLength, length > maximum { broken.append(("maximumLength", "length \(length) is above \(maximum)")) }
        }
        if let pattern, case .string(let text) = value {
            let matches = regex.map { $0.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil } ?? false
            if !matches { broken.append(("pattern", "'\(text)' does not match \(pattern)")) }
        }
        return broken
    }
}
