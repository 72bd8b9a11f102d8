/// The overlay's map from a record key to its newest entry: the entries in one dense
/// array (in arrival order), found through an open-addressing table of keys with
/// linear probing and one multiply-and-shift hash. `Dictionary` hashed every key with
/// SipHash, once per commit's lookup of the replaced version and again per insert,
/// and its resizes rehashed them all; the keys are the store's own serials, not an
/// attacker's, so a cheap mix is enough (as for the block cache's `BlockTable`).
///
/// Entries are added and replaced, never removed: the overlay is dropped whole when
/// its segment seals.
struct KeyTable: Sendable {
    /// Every entry, in the order its key first arrived.
    private(set) var entries: [IndexEntry] = []
    /// The key in each bucket (valid where `slots` is not -1).
    private var keys: [UInt64]
    /// The position in `entries` of each bucket's key; -1 where the bucket is empty.
    private var slots: [Int32]
    private var mask: Int

    init(capacity: Int = 0) {
        var size = 16
        while size * 3 < capacity * 4 { size <<= 1 }
        keys = [UInt64](repeating: 0, count: size)
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    private func home(_ key: UInt64) -> Int { KeyBuckets.home(key, mask: mask) }

    subscript(_ key: RecordKey) -> IndexEntry? {
        var i = home(key.rawValue)
        while slots[i] >= 0 {
            if keys[i] == key.rawValue { return entries[Int(slots[i])] }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Sets `entry` as its key's entry; returns the one it replaces, if any.
    @discardableResult
    mutating func set(_ entry: IndexEntry) -> IndexEntry? {
        let key = entry.key.rawValue
        var i = home(key)
        while slots[i] >= 0 {
            if keys[i] == key {
                let old = entries[Int(slots[i])]
                entries[Int(slots[i])] = entry
                return old
            }
            i = (i + 1) & mask
        }
        if (entries.count + 1) * 4 > slots.count * 3 {
            grow(to: slots.count * 2)
            return set(entry)
        }
        keys[i] = key
        slots[i] = Int32(entries.count)
        entries.append(entry)
        return nil
    }

    /// Makes room for `more` keys without growing on the way.
    mutating func reserve(_ more: Int) {
        let needed = entries.count + more
        entries.reserveCapacity(needed)
        if needed * 4 > slots.count * 3 {
            var size = slots.count
            while needed * 4 > size * 3 { size <<= 1 }
            grow(to: size)
        }
    }

    private mutating func grow(to size: Int) {
        keys = [UInt64](repeating: 0, count: size)
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
        for (position, entry) in entries.enumerated() {
            var i = home(entry.key.rawValue)
            while slots[i] >= 0 { i = (i + 1) & mask }
            keys[i] = entry.key.rawValue
            slots[i] = Int32(position)
        }
    }
}
