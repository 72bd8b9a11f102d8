import Foundation

extension String: PersistentAttribute {
    public static var attributeType: AttributeType { .string }
    public init?(persistentValue: Value) {
        guard case .string(let value) = persistentValue else { return nil }
        self = value
    }
    public var persistentValue: Value { .string(self) }
    public static var placeholder: String { "" }
}

extension Bool: PersistentAttribute {
    public static var attributeType: AttributeType { .bool }
    public init?(persistentValue: Value) {
        guard case .bool(let value) = persistentValue else { return nil }
        self = value
    }
    public var persistentValue: Value { .bool(self) }
    public static var placeholder: Bool { false }
}

extension Double: PersistentAttribute {
    public static var attributeType: AttributeType { .double }
    public init?(persistentValue: Value) {
        switch persistentValue {
        case .double(let value): self = value
        case .int(let value): self = Double(value)
        default: return nil
        }
    }
    public var persistentValue: Value { .double(self) }
    public static var placeholder: Double { 0 }
}

extension Float: PersistentAttribute {
    public static var attributeType: AttributeType { .float }
    public init?(persistentValue: Value) {
        guard let value = Double(persistentValue: persistentValue) else { return nil }
        self = Float(value)
    }
    public var persistentValue: Value { .double(Double(self)) }
    public static var placeholder: Float { 0 }
}

extension Decimal: PersistentAttribute {
    public static var attributeType: AttributeType { .decimal }
    public init?(persistentValue: Value) {
        guard case .decimal(let value) = persistentValue else { return nil }
        self = value
    }
    public var persistentValue: Value { .decimal(self) }
    public static var placeholder: Decimal { 0 }
}

extension Date: PersistentAttribute {
    public static var attributeType: AttributeType { .date }
    public init?(persistentValue: Value) {
        guard case .date(let value) = persistentValue else { return nil }
        self = value
    }
    public var persistentValue: Value { .date(self) }
    public static var placeholder: Date { Date(timeIntervalSince1970: 0) }
}

extension Data: PersistentAttribute {
    public static var attributeType: AttributeType { .binary }
    public init?(persistentValue: Value) {
        guard case .binary(let value) = persistentValue else { return nil }
        self = value
    }
    public var persistentValue: Value { .binary(self) }
    public static var placeholder: Data { Data() }
}

extension UUID: PersistentAttribute {
    public static var attributeType: AttributeType { .uuid }
    public init?(persistentValue: Value) {
        guard case .uuid(let value) = persistentValue else { return nil }
        self = value
    }
    public var persistentValue: Value { .uuid(self) }
    public static var placeholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

extension URL: PersistentAttribute {
    public static var attributeType: AttributeType { .url }
    public init?(persistentValue: Value) {
        guard case .url(let value) = persistentValue else { return nil }
        self = value
    }
    public var persistentValue: Value { .url(self) }
    public static var placeholder: URL { URL(fileURLWithPath: "/") }
}
