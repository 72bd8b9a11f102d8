import Foundation

/// What a stage's `willMigrate` hook hands to its `didMigrate` hook: an explicit value,
/// returned by one and passed to the other, never a static variable.
///
/// It holds attribute values by key, and any other `Sendable` value by key and type.
///
/// ```swift
/// .custom(from: v1, to: v2, willMigrate: { old in
///     var carry = MigrationCarry()
///     carry["noteCount"] = .int(Int64(try old.fetch(FetchRequest(entityName: "WineNote")).count))
///     carry.set(try collectRecipes(old), for: "recipes")       // [String: [String]]
///     return carry
/// }, didMigrate: { new, carry in
///     let recipes = carry.value(for: "recipes", as: [String: [String]].self) ?? [:]
///     // … insert the new notes
/// })
/// ```
public struct MigrationCarry: Sendable {
    private var values: [String: Value] = [:]
    private var objects: [String: any Sendable] = [:]

    /// An empty carry.
    public init() {}

    /// A carry holding these attribute values.
    public init(_ values: [String: Value]) {
        self.values = values
    }

    /// An empty carry, for a `willMigrate` with nothing to hand on.
    package static var empty: MigrationCarry { MigrationCarry() }

    /// An attribute value by key; setting nil removes it.
    public subscript(key: String) -> Value? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Stores any `Sendable` value under a key, replacing what was there.
    public mutating func set<T: Sendable>(_ value: T, for key: String) {
        objects[key] = value
    }

    /// The value stored with ``set(_:for:)`` under this key, if it has this type.
    public func value<T: Sendable>(for key: String, as type: T.Type = T.self) -> T? {
        objects[key] as? T
    }

    /// Every key in use, of values and of other objects, sorted.
    public var keys: [String] { Set(values.keys).union(objects.keys).sorted() }

    /// Whether nothing is stored.
    public var isEmpty: Bool { values.isEmpty && objects.isEmpty }
}
