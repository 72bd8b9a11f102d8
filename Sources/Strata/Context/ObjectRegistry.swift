import StrataLog

/// A context's map from record key to the live object it handed out for that key:
/// open addressing with linear probing, one multiply-and-shift hash of the key, and
/// deletion by shifting the run back (no tombstones). Every fault asked the registry
/// four times (is the object there, register it, and in its `deinit` find it and
/// remove it); `Dictionary` hashed the key with SipHash each time. The keys are the
/// store's own serials, not an attacker's, so a cheap mix is enough (as for the
/// overlay's `KeyTable` and the block cache's `BlockTable`).
///
/// A bucket holds its key beside its unretained object, 16 bytes: a probe reads one
/// cache line, where keys and entries in two arrays (24 bytes a bucket) read two.
///
/// The table shrinks as objects leave, so a context that once held a large fetch
/// does not keep its buckets after the objects are gone.
struct ObjectRegistry {
    typealias Entry = ObjectContext.RegisteredObject

    private struct Bucket {
        var key: UInt64
        /// Nil: the bucket is empty.
        var entry: Entry?
    }

    private var buckets: [Bucket]
    private var mask: Int
    /// How many objects are registered.
    private(set) var count = 0

    private static let minimumSize = 16

    init() {
        buckets = Self.emptyBuckets(Self.minimumSize)
        mask = Self.minimumSize - 1
    }

    private static func emptyBuckets(_ size: Int) -> [Bucket] {
        [Bucket](repeating: Bucket(key: 0, entry: nil), count: size)
    }

    var isEmpty: Bool { count == 0 }
    /// How many buckets the table has (tests check that it shrinks).
    var bucketCount: Int { buckets.count }

    /// The registered objects, in no particular order.
    var values: [Entry] { buckets.compactMap(\.entry) }

    private func home(_ key: UInt64) -> Int { KeyBuckets.home(key, mask: mask) }

    /// Where `key`'s run leads: its bucket and true, or the empty bucket that ends the
    /// run (where it would go) and false.
    private func probe(_ key: UInt64) -> (bucket: Int, found: Bool) {
        var i = home(key)
        while case .some = buckets[i].entry {
            if buckets[i].key == key { return (i, true) }
            i = (i + 1) & mask
        }
        return (i, false)
    }

    /// The bucket holding `key`, or nil.
    private func bucket(of key: UInt64) -> Int? {
        let (i, found) = probe(key)
        return found ? i : nil
    }

    /// The entry for `key`; setting nil removes it.
    subscript(key: RecordKey) -> Entry? {
        get { bucket(of: key.rawValue).flatMap { buckets[$0].entry } }
        set {
            if let newValue { insert(newValue, for: key.rawValue) } else if let i = bucket(of: key.rawValue) { remove(at: i) }
        }
    }

    /// Removes the entry for `key` if it names `object`: an object leaving must not
    /// take out the entry of the object that replaced it under the same key.
    mutating func remove(_ key: RecordKey, ifNaming object: ManagedObject) {
        guard let i = bucket(of: key.rawValue), buckets[i].entry?.names(object) == true else { return }
        remove(at: i)
    }

    /// The object registered for `key`, or else `make()`'s, registered: one walk of
    /// the key's run finds the one or the bucket for the other.
    mutating func object(for key: RecordKey, orRegister make: () throws -> ManagedObject) rethrows -> ManagedObject {
        let (i, found) = probe(key.rawValue)
        if found, let entry = buckets[i].entry { return entry.reference.takeUnretainedValue() }
        let object = try make()
        place(Entry(object), for: key.rawValue, at: i)
        return object
    }

    private mutating func insert(_ entry: Entry, for key: UInt64) {
        let (i, found) = probe(key)
        if found {
            buckets[i].entry = entry
        } else {
            place(entry, for: key, at: i)
        }
    }

    /// Puts a new key's entry in `bucket`, the empty one its run ends at, or, when
    /// that would fill the table past three quarters, grows it first.
    private mutating func place(_ entry: Entry, for key: UInt64, at bucket: Int) {
        if (count + 1) * 4 > buckets.count * 3 {
            rebuild(size: buckets.count * 2)
            insert(entry, for: key)
            return
        }
        buckets[bucket] = Bucket(key: key, entry: entry)
        count += 1
    }

    /// Grows the table once to hold `count` objects: a fetch about to register
    /// thousands doubled it a dozen times, each time allocating, paging in and
    /// rehashing a table twice the size. (It still shrinks as they leave.)
    mutating func reserveCapacity(_ count: Int) {
        var size = buckets.count
        while count * 4 > size * 3 { size <<= 1 }
        if size > buckets.count { rebuild(size: size) }
    }

    /// Empties bucket `i` and moves later members of its run back into the gap, so
    /// that every key stays reachable from its home bucket without tombstones.
    private mutating func remove(at bucket: Int) {
        var gap = bucket
        var j = bucket
        while true {
            j = (j + 1) & mask
            guard case .some = buckets[j].entry else { break }
            if !KeyBuckets.stays(home: home(buckets[j].key), gap: gap, at: j) {
                buckets[gap] = buckets[j]
                gap = j
            }
        }
        buckets[gap].entry = nil
        count -= 1
        if buckets.count > Self.minimumSize, count * 8 < buckets.count {
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
        let old = buckets
        buckets = Self.emptyBuckets(size)
        mask = size - 1
        for bucket in old where bucket.entry != nil {
            var j = home(bucket.key)
            while case .some = buckets[j].entry { j = (j + 1) & mask }
            buckets[j] = bucket
        }
    }
}
