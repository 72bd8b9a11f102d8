/// The storage type of an attribute, as Core Data's `NSAttributeType` names them.
///
/// The raw values are the names used in JSON model files and in the canonical string
/// behind ``ObjectModel/versionHash`` (docs/MODEL.md): never rename a case's raw value.
///
/// Every type maps onto one case of ``Value``: the integer widths onto ``Value/int(_:)``,
/// `float` and `double` onto ``Value/double(_:)``, and so on (see ``Value/conforms(to:)``).
public enum AttributeType: String, Sendable, Hashable, CaseIterable, Codable {
    case bool
    case int16
    case int32
    case int64
    case float
    case double
    case decimal
    case string
    case date
    case binary
    case uuid
    case url
    /// A `Codable` struct (an ingredients list, an address) held as its JSON encoding.
    case composite
    /// A value of any Swift type held as the bytes a named, registered
    /// ``AttributeValueTransformer`` writes (Core Data's Transformable attribute, with
    /// its `valueTransformerName`). The bytes are stored exactly as the transformer
    /// wrote them; the object layer reads and writes them as ``Value/binary(_:)``.
    case transformable

    /// Whether values of this type are numbers, so that minimum and maximum rules apply.
    package var isNumeric: Bool {
        switch self {
        case .int16, .int32, .int64, .float, .double, .decimal: true
        default: false
        }
    }

    /// Whether values of this type are ordered, so that minimum and maximum rules apply:
    /// the numbers and dates.
    package var isComparable: Bool { isNumeric || self == .date }

    /// Whether values of this type have a length, so that length rules apply: strings
    /// (counted in characters) and binary data (counted in bytes).
    package var hasLength: Bool { self == .string || self == .binary }
}
