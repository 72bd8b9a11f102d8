import StrataLog

/// A context's objects with unsaved changes, held strongly, by record key: the objects
/// and their keys in two dense arrays (in arrival order), found through the
/// open-addressing table the overlay's `KeyTable` finds its entries with (`KeySlots`).
///
/// A `Dictionary` would hash every inserted object's key with SipHash and rehash them
/// all at each doubling, and its values come out in hash order, so a save would sort
/// them by key; here the objects of an insert
/// arrive in key order (each entity's serials rise), and `sortedByKey()` finds them
/// sorted in one pass over the keys, without touching an object.
struct ChangedObjects {
    /// The objects, in arrival order (a removal moves the last one into its place).
    private(set) var values: [ManagedObject] = []
    /// `values`' keys, position for position.
    private var keys: [UInt64] = []
    /// Where each key's object lies in `values`.
    private var slots = KeySlots()

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }
    /// How many buckets the table has (tests check that it shrinks).
    var bucketCount: Int { slots.bucketCount }

    /// The changed object with `key`; setting nil removes it.
    subscript(key: RecordKey) -> ManagedObject? {
        get { slots.position(of: key.rawValue).map { values[$0] } }
        set {
            if let newValue { insert(newValue, for: key.rawValue) } else { remove(key.rawValue) }
        }
    }

    /// The objects in key order (a save writes records in key order).
    func sortedByKey() -> [ManagedObject] {
        if zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) { return values }
        return keys.indices.sorted { keys[$0] < keys[$1] }.map { values[$0] }
    }

    mutating func removeAll() {
        self = ChangedObjects()
    }

    private mutating func insert(_ object: ManagedObject, for key: UInt64) {
        if let position = slots.insert(key, at: values.count) {
            values[position] = object
            return
        }
        values.append(object)
        keys.append(key)
    }

    /// Takes `key`'s object out; the last object moves into its place.
    private mutating func remove(_ key: UInt64) {
        guard let position = slots.remove(key) else { return }
        let last = values.count - 1
        if position != last {
            values[position] = values[last]
            keys[position] = keys[last]
            slots.move(keys[position], to: position)
        }
        values.removeLast()
        keys.removeLast()
    }
}
