import Foundation

/// One attribute of an entity: its name, storage type, options and validation rules,
/// as Core Data's `NSAttributeDescription` describes one.
///
/// Build attributes with the ``Attribute`` declaration inside an ``Entity``, or
/// directly when assembling a model in code:
///
/// ```swift
/// var salary = AttributeDescription(name: "salary", type: .double, defaultValue: .double(0))
/// salary.minimumValue = .double(0)
/// ```
///
/// Only some of these facts change how records and their index terms are stored and
/// so count in ``ObjectModel/versionHash``: the name, type, optional, transient,
/// external storage, indexed and unique flags, and a transformable attribute's
/// ``valueTransformerName``. Defaults, validation rules and renaming identifiers do not
/// (docs/MODEL.md, "Version hash").
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name: an ASCII identifier, unique in its entity and its ancestors.
    public var name: String
    /// How the attribute's values are typed and stored.
    public var type: AttributeType
    /// Whether the attribute may hold no value (`Value.null`).
    public var isOptional: Bool
    /// The value a newly inserted object starts with, and the value that lightweight
    /// migration gives existing objects when the attribute is added. `nil` means none.
    ///
    /// It must conform to ``type`` (see ``Value/conforms(to:)``); `.null` is not a
    /// default (use `nil`) and the initializer turns it into `nil`.
    public var defaultValue: Value?
    /// Whether the attribute lives only in memory: never written, never read back, and
    /// not part of the version hash.
    public var isTransient: Bool
    /// Whether large values of this binary attribute go to the store's blob area, so
    /// that reading the object does not read them (Core Data's "Allows External Storage").
    /// Only `binary` attributes may set it.
    public var allowsExternalStorage: Bool
    /// Whether the store keeps an index on this attribute for fetching.
    public var isIndexed: Bool
    /// Whether no two objects of the entity (and its sub-entities) may share a value.
    public var isUnique: Bool
    /// The attribute's name in the previous model version, when it was renamed: what
    /// lightweight migration matches it by (Core Data's `renamingIdentifier`).
    public var renamingIdentifier: String?
    /// The smallest value allowed (numeric and date attributes), checked at save.
    public var minimumValue: Value?
    /// The largest value allowed (numeric and date attributes), checked at save.
    public var maximumValue: Value?
    /// The shortest length allowed: characters of a string, bytes of binary data.
    public var minimumLength: Int?
    /// The longest length allowed: characters of a string, bytes of binary data.
    public var maximumLength: Int?
    /// A regular expression (ICU syntax, as `NSRegularExpression` reads it) that a string
    /// value must match as a whole, like `MATCHES` in an `NSPredicate`.
    public var pattern: String?
    /// The name of the registered ``AttributeValueTransformer`` that turns a
    /// `transformable` attribute's values into the bytes stored and back (Core Data's
    /// `valueTransformerName`); nil for every other type. A transformable attribute
    /// declared without one uses the built-in ``JSONValueTransformer``.
    public var valueTransformerName: String?
    /// Whether a delete's history entry keeps the attribute's last value in its
    /// tombstone (``HistoryTransaction/Change/tombstone``), as Core Data's and SwiftData's
    /// `preserveValueOnDeletion`. Not part of the version hash: it changes no record.
    public var preserveValueOnDeletion = false

    /// Creates an attribute description.
    ///
    /// - Parameters:
    ///   - name: The attribute's name, an ASCII identifier.
    ///   - type: The storage type.
    ///   - isOptional: Whether the attribute may be null. Default `false`.
    ///   - defaultValue: The initial value, or `nil` for none; `.null` counts as none.
    ///   - isTransient: Whether it is kept in memory only.
    ///   - allowsExternalStorage: Whether large binary values go to the blob area.
    ///   - isIndexed: Whether the store indexes it.
    ///   - isUnique: Whether values must be unique in the entity.
    ///   - renamingIdentifier: The attribute's name in the previous model version.
    ///   - minimumValue: The smallest allowed value (numbers and dates).
    ///   - maximumValue: The largest allowed value (numbers and dates).
    ///   - minimumLength: The shortest allowed length (strings and binary).
    ///   - maximumLength: The longest allowed length (strings and binary).
    ///   - pattern: A regular expression a string value must match.
    ///   - valueTransformerName: For a `transformable` attribute, the registered
    ///     transformer's name; nil means ``JSONValueTransformer/name``.
    ///   - preserveValueOnDeletion: Whether history keeps the value of a deleted object.
    public init(
        name: String,
        type: AttributeType,
        isOptional: Bool = false,
        defaultValue: Value? = nil,
        isTransient: Bool = false,
        allowsExternalStorage: Bool = false,
        isIndexed: Bool = false,
        isUnique: Bool = false,
        renamingIdentifier: String? = nil,
        minimumValue: Value? = nil,
        maximumValue: Value? = nil,
        minimumLength: Int? = nil,
        maximumLength: Int? = nil,
        pattern: String? = nil,
        valueTransformerName: String? = nil,
        preserveValueOnDeletion: Bool = false
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        // `.null` and `nil` would otherwise be two spellings of "no default" that
        // compare unequal and do not survive a JSON round trip.
        self.defaultValue = (defaultValue?.isNull ?? false) ? nil : defaultValue
        self.isTransient = isTransient
        self.allowsExternalStorage = allowsExternalStorage
        self.isIndexed = isIndexed
        self.isUnique = isUnique
        self.renamingIdentifier = renamingIdentifier
        self.minimumValue = minimumValue
        self.maximumValue = maximumValue
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
        self.pattern = pattern
        self.valueTransformerName = valueTransformerName
            ?? (type == .transformable ? JSONValueTransformer.name : nil)
        self.preserveValueOnDeletion = preserveValueOnDeletion
    }

    /// Whether any validation rule (range, length, pattern) is set.
    package var hasValidationRules: Bool {
        minimumValue != nil || maximumValue != nil || minimumLength != nil
            || maximumLength != nil || pattern != nil
    }
}
