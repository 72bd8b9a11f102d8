/// An attribute declaration in the model DSL, inside an ``Entity`` block.
///
/// Storage options are arguments; validation rules and renaming are modifiers:
///
/// ```swift
/// Attribute("salary", .double, default: .double(0))
///     .minimum(.double(0))
/// Attribute("photo", .binary, optional: true, externalStorage: true)
/// Attribute("email", .string, indexed: true, unique: true)
///     .length(max: 254)
///     .pattern("[^@]+@[^@]+")
/// Attribute("name", .string)
///     .renamed(from: "title")
/// Attribute("avatar", .transformable, optional: true, externalStorage: true)
///     .valueTransformer("PNGImage")
/// ```
public struct Attribute: Sendable, Hashable {
    /// The description this declaration stands for.
    package var attributeDescription: AttributeDescription

    /// Declares an attribute.
    ///
    /// - Parameters:
    ///   - name: The attribute's name, an ASCII identifier.
    ///   - type: Its storage type.
    ///   - optional: Whether it may be null. Default `false`.
    ///   - defaultValue: The value new objects start with (and migration fills in).
    ///   - transient: Kept in memory only, never stored.
    ///   - externalStorage: Large values go to the blob area (binary and transformable).
    ///   - indexed: The store keeps an index on it.
    ///   - unique: No two objects of the entity share a value.
    public init(
        _ name: String,
        _ type: AttributeType,
        optional: Bool = false,
        default defaultValue: Value? = nil,
        transient: Bool = false,
        externalStorage: Bool = false,
        indexed: Bool = false,
        unique: Bool = false
    ) {
        attributeDescription = AttributeDescription(
            name: name, type: type, isOptional: optional, defaultValue: defaultValue,
            isTransient: transient, allowsExternalStorage: externalStorage,
            isIndexed: indexed, isUnique: unique)
    }

    /// The attribute under the name it had in the previous model version.
    public func renamed(from previousName: String) -> Attribute {
        with { $0.renamingIdentifier = previousName }
    }

    /// The smallest value allowed at save (numbers and dates).
    public func minimum(_ value: Value) -> Attribute {
        with { $0.minimumValue = value }
    }

    /// The largest value allowed at save (numbers and dates).
    public func maximum(_ value: Value) -> Attribute {
        with { $0.maximumValue = value }
    }

    /// The allowed length at save: characters of a string, bytes of binary data.
    public func length(min: Int? = nil, max: Int? = nil) -> Attribute {
        with {
            $0.minimumLength = min
            $0.maximumLength = max
        }
    }

    /// The registered ``AttributeValueTransformer`` a `transformable` attribute's values
    /// go through (``ValueTransformers/register(_:named:)``); without this modifier a
    /// transformable attribute uses the built-in ``JSONValueTransformer``.
    public func valueTransformer(_ name: String) -> Attribute {
        with { $0.valueTransformerName = name }
    }

    /// Keeps the attribute's last value in the tombstone a delete's history entry
    /// carries (``StoreOptions/historyTracking``), so a consumer of the history can
    /// tell which object went: an email, an external id.
    public func preservesValueOnDeletion() -> Attribute {
        with { $0.preserveValueOnDeletion = true }
    }

    /// A regular expression (ICU syntax) a string value must match as a whole.
    public func pattern(_ regularExpression: String) -> Attribute {
        with { $0.pattern = regularExpression }
    }

    private func with(_ change: (inout AttributeDescription) -> Void) -> Attribute {
        var copy = self
        change(&copy.attributeDescription)
        return copy
    }
}
