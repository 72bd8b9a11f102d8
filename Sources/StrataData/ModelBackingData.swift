/// Where a model's values live, as SwiftData's `BackingData`: its own values until it
/// is inserted, then its ``ManagedObject`` and ``ModelContext``. `@Model` adds one to
/// each class; code does not use it directly.
public struct ModelBackingData {
    /// The object behind the model, once inserted or fetched.
    var object: ManagedObject?
    /// The context it belongs to.
    var context: ModelContext?
    /// Values assigned before insertion, by property name: attributes as their Swift
    /// values, relationships as models.
    var pending: [String: Any] = [:]

    /// Empty backing data: a model not inserted yet.
    public init() {}

    init(object: ManagedObject, context: ModelContext) {
        self.object = object
        self.context = context
    }

    /// Keeps a value the model's initializer assigned (called by `@Model`'s init accessors).
    public mutating func setInitialValue<Value>(_ value: Value, forKey key: String) {
        pending[key] = value
    }
}
