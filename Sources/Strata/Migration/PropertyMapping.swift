/// How one property of a destination object gets its value, as Core Data's
/// `NSPropertyMapping`: the destination property's name, an expression over the
/// source object, and the steps (type conversion, nil replacement) applied after it.
///
/// ```swift
/// let rename = PropertyMapping(name: "name", value: .keyPath("title"))
/// let required = PropertyMapping(
///     name: "due", value: .keyPath("due"),
///     transforms: [.replaceNil(with: .date(Date(timeIntervalSince1970: 946_684_800)))])
/// ```
///
/// The manager computes a value as: evaluate ``valueExpression`` on the source object
/// (`.defaultValue` gives the destination attribute's default, or `.null`), then
/// apply ``transforms`` to it in order.
public struct PropertyMapping: Sendable {
    /// The destination property's name.
    public var name: String
    /// Where the value comes from.
    public var valueExpression: MappingExpression
    /// Steps applied, in order, to the expression's value.
    public var transforms: [MappingTransform]

    /// Creates a property mapping.
    ///
    /// - Parameters:
    ///   - name: The destination property.
    ///   - value: Where its value comes from.
    ///   - transforms: Conversions applied after, in order. Default none.
    public init(name: String, value: MappingExpression, transforms: [MappingTransform] = []) {
        self.name = name
        self.valueExpression = value
        self.transforms = transforms
    }

    /// The source property read by a plain `.keyPath` (no relationship traversal), if any.
    package var sourcePropertyName: String? {
        guard let path = valueExpression.keyPath, !path.utf8.contains(UInt8(ascii: ".")) else { return nil }
        return path
    }

    /// Whether the mapping copies the same-named source property unchanged.
    package var isIdentity: Bool { sourcePropertyName == name && transforms.isEmpty }

    /// The value to store, from the value the expression produced: applies
    /// ``transforms`` in order.
    ///
    /// - Throws: `StrataError` `migrationFailed` when a conversion does not apply.
    package func finalValue(from expressionValue: Value) throws -> Value {
        try transforms.reduce(expressionValue) { try $1.apply(to: $0) }
    }

    /// The value that nil becomes, when a transform says so (optional → non-optional
    /// with a default, or a new attribute with a default).
    package var nilReplacement: Value? {
        for case .replaceNil(let value) in transforms.reversed() { return value }
        return nil
    }
}

extension PropertyMapping: CustomStringConvertible {
    /// `name ← $source.title`, for logs and test messages.
    public var description: String {
        var text = "\(name) ← \(valueExpression)"
        for transform in transforms {
            switch transform {
            case .convert(let from, let to): text += " as \(from.rawValue)→\(to.rawValue)"
            case .replaceNil(let value): text += " ?? \(value)"
            }
        }
        return text
    }
}
