/// The finding half of a table keyed by record key whose elements lie in a dense
/// array of its owner's: each key in a bucket beside its element's position, found by
/// linear probing from the home bucket `KeyBuckets` gives, removed by shifting its run
/// back (no tombstones). The overlay's `KeyTable` (entries added and replaced) and a
/// context's `ChangedObjects` (objects added and removed) keep their elements in
/// arrival order and find them here.
///
/// The table holds at most three keys in four buckets, doubling as it fills, and
/// shrinks when removals leave fewer than one in eight buckets used.
package struct KeySlots: Sendable {
    /// The key in each bucket (valid where `slots` is not -1).
    @usableFromInline package var keys: [UInt64]
    /// The position of each bucket's element; -1 where the bucket is empty.
    @usableFromInline package var slots: [Int32]
    @usableFromInline package var mask: Int
    /// How many keys the table holds.
    @usableFromInline package var count = 0

    private static let minimumSize = 16

    /// An empty table with room for `capacity` keys before it grows.
    package init(capacity: Int = 0) {
        var size = Self.minimumSize
        while size * 3 < capacity * 4 { size <<= 1 }
        keys = [UInt64](repeating: 0, count: size)
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    /// How many buckets the table has (tests check that it shrinks).
    package var bucketCount: Int { slots.count }

    /// The bucket holding `key`, or nil.
    @inlinable
    package func bucket(of key: UInt64) -> Int? {
        var i = KeyBuckets.home(key, mask: mask)
        while slots[i] >= 0 {
            if keys[i] == key { return i }
            i = (i + 1) & mask
        }
        return nil
    }

    /// The position of `key`'s element, or nil.
    @inlinable
    package func position(of key: UInt64) -> Int? {
        bucket(of: key).map { Int(slots[$0]) }
    }

    /// Puts `key` at `position` unless the table has it: then its position is returned
    /// and nothing changes.
    @inlinable
    package mutating func insert(_ key: UInt64, at position: Int) -> Int? {
        var i = KeyBuckets.home(key, mask: mask)
        while slots[i] >= 0 {
            if keys[i] == key { return Int(slots[i]) }
            i = (i + 1) & mask
        }
        if (count + 1) * 4 > slots.count * 3 {
            rebuild(size: slots.count * 2)
            return insert(key, at: position)
        }
        keys[i] = key
        slots[i] = Int32(position)
        count += 1
        return nil
    }

    /// Makes room for `total` keys without growing on the way.
    package mutating func reserve(_ total: Int) {
        guard total * 4 > slots.count * 3 else { return }
        var size = slots.count
        while total * 4 > size * 3 { size <<= 1 }
        rebuild(size: size)
    }

    /// Records that `key`'s element now lies at `position`.
    package mutating func move(_ key: UInt64, to position: Int) {
        if let i = bucket(of: key) { slots[i] = Int32(position) }
    }

    /// Takes `key` out; returns the position its element had, or nil.
    package mutating func remove(_ key: UInt64) -> Int? {
        guard let bucket = bucket(of: key) else { return nil }
        let position = Int(slots[bucket])
        var gap = bucket
        var j = bucket
        while true {
            j = (j + 1) & mask
            guard slots[j] >= 0 else { break }
            if !KeyBuckets.stays(home: KeyBuckets.home(keys[j], mask: mask), gap: gap, at: j) {
                keys[gap] = keys[j]
                slots[gap] = slots[j]
                gap = j
            }
        }
        slots[gap] = -1
        count -= 1
        if slots.count > Self.minimumSize, count * 8 < slots.count {
            var size = Self.minimumSize
            while size * 3 < count * 8 { size <<= 1 }
            rebuild(size: size)
        }
        return position
    }

    /// Puts every key in a table of `size` buckets.
    @usableFromInline
    package mutating func rebuild(size: Int) {
        let oldKeys = keys, oldSlots = slots
        keys = [UInt64](repeating: 0, count: size)
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
        for b in oldSlots.indices where oldSlots[b] >= 0 {
            var i = KeyBuckets.home(oldKeys[b], mask: mask)
            while slots[i] >= 0 { i = (i + 1) & mask }
            keys[i] = oldKeys[b]
            slots[i] = oldSlots[b]
        }
    }
}
