/// The overlay's map from a record key to its newest entry: the entries in one dense
/// array (in arrival order), found through an open-addressing table of keys with
/// linear probing and one multiply-and-shift hash (`KeySlots`). `Dictionary` hashed every key with
/// SipHash, once per commit's lookup of the replaced version and again per insert,
/// and its resizes rehashed them all; the keys are the store's own serials, not an
/// attacker's, so a cheap mix is enough (as for the block cache's `BlockTable`).
///
/// Entries are added and replaced, never removed: the overlay is dropped whole when
/// its segment seals.
struct KeyTable: Sendable {
    /// Every entry, in the order its key first arrived.
    private(set) var entries: [IndexEntry] = []
    /// Where each key's entry lies in `entries`.
    private var slots: KeySlots

    init(capacity: Int = 0) {
        slots = KeySlots(capacity: capacity)
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    subscript(_ key: RecordKey) -> IndexEntry? {
        slots.position(of: key.rawValue).map { entries[$0] }
    }

    /// `key`'s entry as a slot, its blob list not copied (see `slot(at:)`).
    func slot(_ key: RecordKey) -> IndexSlot? {
        slots.position(of: key.rawValue).map { slot(at: $0) }
    }

    /// The entry at `position` in `entries` as a slot, read in place: a copy of the
    /// entry would retain its blob list, and a walk drops it at once.
    func slot(at position: Int) -> IndexSlot {
        entries.withUnsafeBufferPointer { all in
            IndexSlot(key: all[position].key, sequence: all[position].sequence, isTombstone: all[position].isTombstone,
                      location: all[position].location, blobList: 0)
        }
    }

    /// Sets `entry` as its key's entry; returns the one it replaces, if any.
    @discardableResult
    mutating func set(_ entry: IndexEntry) -> IndexEntry? {
        if let position = slots.insert(entry.key.rawValue, at: entries.count) {
            let old = entries[position]
            entries[position] = entry
            return old
        }
        entries.append(entry)
        return nil
    }

    /// Makes room for `more` keys without growing on the way.
    mutating func reserve(_ more: Int) {
        let needed = entries.count + more
        entries.reserveCapacity(needed)
        slots.reserve(needed)
    }
}
