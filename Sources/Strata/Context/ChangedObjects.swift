import StrataLog

/// A context's objects with unsaved changes, held strongly, by record key: the objects
/// and their keys in two dense arrays (in arrival order), found through an
/// open-addressing table with linear probing and one multiply-and-shift hash, as the
/// registry (`ObjectRegistry`) and the overlay's `KeyTable` find theirs.
///
/// A `Dictionary` hashed every inserted object's key with SipHash and rehashed them
/// all at each doubling: a quarter of inserting a million objects. Its values came
/// out in hash order, so a save sorted them by key; here the objects of an insert
/// arrive in key order (each entity's serials rise), and `sortedByKey()` finds them
/// sorted in one pass over the keys, without touching an object.
struct ChangedObjects {
    /// The objects, in arrival order (a removal moves the last one into its place).
    private(set) var values: [ManagedObject] = []
    /// `values`' keys, position for position.
    private var keys: [UInt64] = []
    /// The key in each bucket (valid where `slots` is not -1).
    private var bucketKeys: [UInt64]
    /// The position in `values` of each bucket's object; -1 where the bucket is empty.
    private var slots: [Int32]
    private var mask: Int

    private static let minimumSize = 16

    init() {
        bucketKeys = [UInt64](repeating: 0, count: Self.minimumSize)
        slots = [Int32](repeating: -1, count: Self.minimumSize)
        mask = Self.minimumSize - 1
    }

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }
    /// How many buckets the table has (tests check that it shrinks).
    var bucketCount: Int { slots.count }

    private func home(_ key: UInt64) -> Int { KeyBuckets.home(key, mask: mask) }

    /// The bucket holding `key`, or nil.
    private func bucket(of key: UInt64) -> Int? {
        var i = home(key)
        while slots[i] >= 0 {
            if bucketKeys[i] == key { return i }
            i = (i + 1) & mask
        }
        return nil
    }

    /// The changed object with `key`; setting nil removes it.
    subscript(key: RecordKey) -> ManagedObject? {
        get { bucket(of: key.rawValue).map { values[Int(slots[$0])] } }
        set {
            if let newValue { insert(newValue, for: key.rawValue) } else if let i = bucket(of: key.rawValue) { remove(at: i) }
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
        var i = home(key)
        while slots[i] >= 0 {
            if bucketKeys[i] == key {
                values[Int(slots[i])] = object
                return
            }
            i = (i + 1) & mask
        }
        if (values.count + 1) * 4 > slots.count * 3 {
            rebuild(size: slots.count * 2)
            insert(object, for: key)
            return
        }
        bucketKeys[i] = key
        slots[i] = Int32(values.count)
        values.append(object)
        keys.append(key)
    }

    /// Empties bucket `bucket` and its object's place in `values` (the last object
    /// moves there), then moves later members of the bucket's run back into the gap,
    /// so that every key stays reachable from its home bucket without tombstones.
    private mutating func remove(at bucket: Int) {
        let position = Int(slots[bucket])
        let last = values.count - 1
        if position != last {
            values[position] = values[last]
            keys[position] = keys[last]
            if let moved = self.bucket(of: keys[position]) { slots[moved] = Int32(position) }
        }
        values.removeLast()
        keys.removeLast()
        var gap = bucket
        var j = bucket
        while true {
            j = (j + 1) & mask
            guard slots[j] >= 0 else { break }
            if !KeyBuckets.stays(home: home(bucketKeys[j]), gap: gap, at: j) {
                bucketKeys[gap] = bucketKeys[j]
                slots[gap] = slots[j]
                gap = j
            }
        }
        slots[gap] = -1
        if slots.count > Self.minimumSize, values.count * 8 < slots.count {
            var size = Self.minimumSize
            while size * 3 < values.count * 8 { size <<= 1 }
            rebuild(size: size)
        }
    }

    private mutating func rebuild(size: Int) {
        bucketKeys = [UInt64](repeating: 0, count: size)
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
        for (position, key) in keys.enumerated() {
            var i = home(key)
            while slots[i] >= 0 { i = (i + 1) & mask }
            bucketKeys[i] = key
            slots[i] = Int32(position)
        }
    }
}
