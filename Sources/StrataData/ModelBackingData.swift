/// Where a model's values live, as SwiftData's `BackingData`: its own values until it
/// is inserted, then its ``ManagedObject`` and ``ModelContext``. `@Model` adds one to
/// each class; code does not use it directly.
public struct ModelBackingData {
    /// The object behind the model, once inserted or fetched.
    @usableFromInline var object: ManagedObject?
    /// The context it belongs to.
    @usableFromInline var context: ModelContext?
    /// Values assigned before insertion, by property name: attributes in their stored
    /// form (``PendingAttribute``), composites as their Swift values, relationships as models.
    @usableFromInline var pending = PendingValues()

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

    /// Keeps an attribute value the model's initializer assigned, already in its stored
    /// form: insertion then writes it without a dynamic cast per property.
    public mutating func setInitialValue<Value: PersistentAttribute>(_ value: Value, forKey key: String) {
        pending[key] = PendingAttribute(value.persistentValue)
    }
}

/// An attribute value kept before insertion, in the form the object layer stores.
@usableFromInline
struct PendingAttribute {
    @usableFromInline let value: Strata.Value

    @usableFromInline
    init(_ value: Strata.Value) { self.value = value }
}

/// The values a model holds before insertion, in assignment order: a handful per
/// model, so a list searched from its end (the latest assignment wins) costs less than
/// hashing each name into a dictionary, and insertion applies them without a lookup.
@usableFromInline
struct PendingValues {
    @usableFromInline var entries: [(key: String, value: Any)] = []

    @usableFromInline
    init() {}

    @inlinable
    subscript(key: String) -> Any? {
        get { entries.last { $0.key == key }?.value }
        set {
            if let index = entries.lastIndex(where: { $0.key == key }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                if entries.isEmpty { entries.reserveCapacity(8) }
                entries.append((key, newValue))
            }
        }
    }
}
