/// A Swift type that a model stores as one attribute of a Strata type: String, Bool,
/// the integer widths, Float, Double, Decimal, Date, Data, UUID, URL, and optionals
/// of them. Any other `Codable` type is stored as a composite attribute (its JSON).
///
/// ```swift
/// Double.attributeType            // .double
/// Double?.isOptionalAttribute     // true
/// ```
public protocol PersistentAttribute: Codable {
    /// The attribute type this Swift type is stored as.
    static var attributeType: AttributeType { get }
    /// Whether the type admits "no value" (an `Optional`).
    static var isOptionalAttribute: Bool { get }
    /// The value from the object layer's form, or nil when it does not fit.
    init?(persistentValue: Value)
    /// The object layer's form of the value.
    var persistentValue: Value { get }
    /// What a read that failed returns (the failure itself is kept by the context and
    /// thrown by its next save): zero, empty, or nil.
    static var placeholder: Self { get }
}

extension PersistentAttribute {
    public static var isOptionalAttribute: Bool { false }
}

extension Optional: PersistentAttribute where Wrapped: PersistentAttribute {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptionalAttribute: Bool { true }
    public init?(persistentValue: Value) {
        if persistentValue.isNull { self = .none; return }
        guard let wrapped = Wrapped(persistentValue: persistentValue) else { return nil }
        self = .some(wrapped)
    }
    public var persistentValue: Value { self?.persistentValue ?? .null }
    public static var placeholder: Self { nil }
}
