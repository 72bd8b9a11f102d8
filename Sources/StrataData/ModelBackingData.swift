import Strata

/// Where a model's values live, as SwiftData's `BackingData`: its own values until it
/// is inserted, then its `ManagedObject` and ``ModelContext``. `@Model` adds one to
/// each class; code does not use it directly, and must not keep a copy of it beyond
/// the model's life (the copy would keep the model's `ModelLink`, and with it the
/// object's pointer to a model that is gone).
public struct ModelBackingData {
    /// The object behind the model, once inserted or fetched.
    @usableFromInline var object: ManagedObject?
    /// The context it belongs to.
    @usableFromInline var context: ModelContext?
    /// Values assigned before insertion, by property name: attributes in their stored
    /// form, composites as their Swift values, relationships as models (``PendingValue``).
    @usableFromInline var pending = PendingValues()

    /// Empty backing data: a model not inserted yet.
    public init() {}

    /// Ties the object back to the model; see ``ModelLink``.
    @usableFromInline var link: ModelLink?

    init(object: ManagedObject, context: ModelContext, link: ModelLink) {
        self.object = object
        self.context = context
        self.link = link
    }

    /// Keeps a value the model's initializer assigned (called by `@Model`'s init accessors).
    public mutating func setInitialValue<Value>(_ value: Value, forKey key: String) {
        pending.appendInitial(.other(value), forKey: key)
    }

    /// Keeps an attribute value the model's initializer assigned, already in its stored
    /// form: insertion then writes it without a dynamic cast per property.
    public mutating func setInitialValue<Value: PersistentAttribute>(_ value: Value, forKey key: String) {
        pending.appendInitial(.attribute(value.persistentValue), forKey: key)
    }
}

/// A value kept before insertion: an attribute in the form the object layer stores, or
/// anything else (a composite as its Swift value, a relationship as its models).
@usableFromInline
enum PendingValue {
    case attribute(Strata.Value)
    case other(Any)
}

/// The values a model holds before insertion, in assignment order: a handful per
/// model, so a list searched from its end costs less than hashing each name into a
/// dictionary, and insertion applies them without a lookup.
@usableFromInline
struct PendingValues {
    @usableFromInline var entries: [(key: String, value: PendingValue)] = []

    @usableFromInline
    init() {}

    /// The position of the latest value kept for `key`. A loop over positions, not
    /// `lastIndex(where:)`, whose closure gets a copy of every entry it looks at.
    @inlinable
    func index(of key: String) -> Int? {
        var index = entries.count
        while index > 0 {
            index -= 1
            if entries[index].key == key { return index }
        }
        return nil
    }

    @inlinable
    subscript(key: String) -> PendingValue? {
        get { index(of: key).map { entries[$0].value } }
        set {
            if let index = index(of: key) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                append(newValue, forKey: key)
            }
        }
    }

    /// A value that is not an attribute's stored form, if one is kept for `key`.
    @inlinable
    func other(_ key: String) -> Any? {
        if case .other(let value)? = self[key] { return value }
        return nil
    }

    /// Keeps the value an init accessor assigned, without searching: Swift runs each
    /// property's init accessor at most once per instance (later assignments are setter
    /// calls, which go through the subscript). Every model made from the store runs the
    /// init accessors of the properties with initial values too, only to drop the
    /// result: this keeps that cheap.
    @usableFromInline
    mutating func appendInitial(_ value: PendingValue, forKey key: String) {
        append(value, forKey: key)
    }

    /// Appends, making room for a few values at the first: an array grown one append
    /// at a time reallocates at 1, 2 and 4 entries, and a model has a handful.
    @inlinable
    mutating func append(_ value: PendingValue, forKey key: String) {
        if entries.capacity == 0 { entries.reserveCapacity(4) }
        entries.append((key, value))
    }
}
