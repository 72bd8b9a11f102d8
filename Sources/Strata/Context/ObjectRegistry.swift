import StrataLog

/// A context's map from record key to the live object it handed out for that key:
/// open addressing with linear probing, one multiply-and-shift hash of the key, and
/// deletion by shifting the run back (no tombstones). Every fault asked the registry
/// four times (is the object there, register it, and in its `deinit` find it and
/// remove it); `Dictionary` hashed the key with SipHash each time. The keys are the
/// store's own serials, not an attacker's, so a cheap mix is enough (as for the
/// overlay's `KeyTable` and the block cache's `BlockTable`).
///
/// The table shrinks as objects leave, so a context that once held a large fetch
/// does not keep its buckets after the objects are gone.
struct ObjectRegistry {
    typealias Entry = ObjectContext.RegisteredObject

    /// The key in each bucket (valid where `entries` holds one).
    private var keys: [UInt64]
    private var entries: [Entry?]
    private var mask: Int
    /// How many objects are registered.
    private(set) var count = 0

    private static let minimumSize = 16

    init() {
        keys = [UInt64](repeating: 0, count: Self.minimumSize)
        entries = [Entry?](repeating: nil, count: Self.minimumSize)
        mask = Self.minimumSize - 1
    }

    var isEmpty: Bool { count == 0 }
    /// How many buckets the table has (tests check that it shrinks).
    var bucketCount: Int { entries.count }

    /// The registered objects, in no particular order.
    var values: [Entry] { entries.compactMap { $0 } }

    private func home(_ key: UInt64) -> Int { KeyBuckets.home(key, mask: mask) }

    /// The bucket holding `key`, or nil.
    private func bucket(of key: UInt64) -> Int? {
        var i = home(key)
        while case .some = entries[i] {
            if keys[i] == key { return i }
            i = (i + 1) & mask
        }
        return nil
    }

    /// The entry for `key`; setting nil removes it.
    subscript(key: RecordKey) -> Entry? {
        get { bucket(of: key.rawValue).flatMap { entries[$0] } }
        set {
            if let newValue { insert(newValue, for: key.rawValue) } else if let i = bucket(of: key.rawValue) { remove(at: i) }
        }
    }

    /// Removes the entry for `key` if it names `identity`: an object leaving must not
    /// take out the entry of the object that replaced it under the same key.
    mutating func remove(_ key: RecordKey, ifIdentity identity: ObjectIdentifier) {
        guard let i = bucket(of: key.rawValue), entries[i]?.identity == identity else { return }
        remove(at: i)
    }

    private mutating func insert(_ entry: Entry, for key: UInt64) {
        var i = home(key)
        while case .some = entries[i] {
            if keys[i] == key {
                entries[i] = entry
                return
            }
            i = (i + 1) & mask
        }
        if (count + 1) * 4 > entries.count * 3 {
            rebuild(size: entries.count * 2)
            insert(entry, for: key)
            return
        }
        keys[i] = key
        entries[i] = entry
        count += 1
    }

    /// Grows the table once to hold `count` objects: a fetch about to register
    /// thousands doubled it a dozen times, each time allocating, paging in and
    /// rehashing a table twice the size. (It still shrinks as they leave.)
    mutating func reserveCapacity(_ count: Int) {
        var size = entries.count
        while count * 4 > size * 3 { size <<= 1 }
        if size > entries.count { rebuild(size: size) }
    }

    /// Empties bucket `i` and moves later members of its run back into the gap, so
    /// that every key stays reachable from its home bucket without tombstones.
    private mutating func remove(at bucket: Int) {
        var gap = bucket
        var j = bucket
        while true {
            j = (j + 1) & mask
            guard case .some = entries[j] else { break }
            if !KeyBuckets.stays(home: home(keys[j]), gap: gap, at: j) {
                keys[gap] = keys[j]
                entries[gap] = entries[j]
                gap = j
            }
        }
        entries[gap] = nil
        count -= 1
        if entries.count > Self.minimumSize, count * 8 < entries.count {
            var size = Self.minimumSize
            while size * 3 < count * 8 { size <<= 1 }
            rebuild(size: size)
        }
    }

    /// Empties the registry and gives its buckets back.
    mutating func removeAll() {
        self = ObjectRegistry()
    }

    private mutating func rebuild(size: Int) {
        let oldKeys = keys, oldEntries = entries
        keys = [UInt64](repeating: 0, count: size)
        entries = [Entry?](repeating: nil, count: size)
        mask = size - 1
        for (i, entry) in oldEntries.enumerated() {
            guard let entry else { continue }
            var j = home(oldKeys[i])
            while case .some = entries[j] { j = (j + 1) & mask }
            keys[j] = oldKeys[i]
            entries[j] = entry
        }
    }
}
