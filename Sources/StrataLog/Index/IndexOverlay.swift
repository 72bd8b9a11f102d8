/// The active segment's index, in memory (FORMAT.md §7.6): for each key written since
/// the last roll, its newest version, and the terms of every version written (one
/// per sequence and key). It
/// becomes the segment's index file when the segment seals, and is rebuilt at open by
/// replaying the active segment. Its size is bounded by `LogStoreOptions.overlayEntryLimit`,
/// past which the segment rolls.
struct IndexOverlay: Sendable {
    /// A key and where its entry lies among the table's entries.
    struct KeyPosition: Sendable {
        var key: RecordKey
        var position: Int32
    }

    private(set) var entries = KeyTable()
    /// Terms of every version added, in arrival order; readers keep a term only while
    /// its key's current version has the term's sequence.
    private(set) var terms: [IndexTermEntry] = []
    /// Every key with its entry's position in `entries` (positions never change:
    /// entries are replaced in place, never removed), sorted by key once `normalizeKeys`
    /// ran. A range walk reads each entry at its position: looking every key up in
    /// the table again would cost a probe of a large table per key, a cache miss each.
    private var sortedKeys: [KeyPosition] = []
    private var keysSorted = true
    private var termsSorted = true
    /// Whether new keys arrived in increasing order (so `entries`, in arrival order, is
    /// sorted): `normalizeKeys` sorts `sortedKeys` but not the table's entries.
    private var arrivedInOrder = true
    /// Whether every term added is still its key's current version's: no key was
    /// written twice and no tombstone came with terms. The roll then keeps them all
    /// without looking each key up.
    private var termsAllCurrent = true

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    func entry(_ key: RecordKey) -> IndexEntry? { entries[key] }

    /// `entry(_:)` as a slot: without a copy of its blob list, whose retain touched a
    /// heap object of its own per entry (a cache miss each, when a fault batch looked
    /// up 64 keys of a large overlay whose records each name a blob).
    func slot(_ key: RecordKey) -> IndexSlot? { entries.slot(key) }

    /// Every key's newest entry, in the order the keys first arrived.
    var allEntries: [IndexEntry] { entries.entries }

    /// Calls `body` with each entry in place: a caller holding the state lock walks the
    /// overlay without keeping a reference to its storage, which the next commit would
    /// then copy whole.
    func forEachEntry(_ body: (IndexEntry) -> Void) {
        for entry in entries.entries { body(entry) }
    }

    /// Room for `more` versions carrying `moreTerms` terms in all.
    mutating func reserve(_ more: Int, terms moreTerms: Int) {
        entries.reserve(more)
        let needed = sortedKeys.count + more
        if needed > sortedKeys.capacity { sortedKeys.reserveCapacity(max(needed, sortedKeys.capacity * 2)) }
        // Terms too, with the same doubling, so that a large commit does not grow them
        // step by step (a new store's first commit grows them from empty, copying
        // them at every step).
        let termsNeeded = terms.count + moreTerms
        if moreTerms > 0 && termsNeeded > terms.capacity { terms.reserveCapacity(max(termsNeeded, terms.capacity * 2)) }
    }

    /// Adds a version; returns the version it replaces in the overlay, if any.
    @discardableResult
    mutating func add(_ entry: IndexEntry, terms newTerms: [IndexTerm]) -> IndexEntry? {
        let position = Int32(truncatingIfNeeded: entries.count)
        let old = entries.set(entry)
        if old == nil {
            if let last = sortedKeys.last, entry.key <= last.key {
                keysSorted = false
                arrivedInOrder = false
            }
            sortedKeys.append(KeyPosition(key: entry.key, position: position))
        } else {
            termsAllCurrent = false
        }
        if entry.isTombstone && !newTerms.isEmpty { termsAllCurrent = false }
        // A key written twice in one transaction: the first version's terms carry the
        // same sequence as the second's, so they must go (rare; a linear sweep).
        if let old, old.sequence == entry.sequence {
            terms.removeAll { $0.key == entry.key && $0.sequence == entry.sequence }
        }
        for term in newTerms {
            let t = IndexTermEntry(index: term.index, value: TermBytes(term.value), key: entry.key, sequence: entry.sequence)
            if termsSorted, let last = terms.last, IndexTermEntry.precedes(t, last) { termsSorted = false }
            terms.append(t)
        }
        return old
    }

    /// The overlay as an index file's sorted entries and terms (only the current
    /// version's terms), for the roll. The terms are packed and sorted as byte runs
    /// (`PackedTerms`): a sort of the overlay's `IndexTermEntry` values compared long
    /// values through an array each, and copying the kept ones made an array of them.
    func sortedContents() -> (entries: [IndexEntry], terms: PackedTerms) {
        // Keys are allocated in increasing serials, so a bulk load arrives sorted and
        // needs no stable sort of its entries, which would weigh on committing them.
        let sorted = arrivedInOrder ? entries.entries : entries.entries.sorted { $0.key < $1.key }
        var packed = PackedTerms()
        for t in terms {
            if !termsAllCurrent {
                guard let entry = entries[t.key], !entry.isTombstone, entry.sequence == t.sequence else { continue }
            }
            t.value.withBytes { packed.append(index: t.index, value: $0, key: t.key, sequence: t.sequence) }
        }
        packed.sort()
        return (sorted, packed)
    }

    /// Sorts the key list if writes left it unsorted: what a key range read needs. Apart
    /// from the terms, whose sort is longer (a to-one relationship's terms arrive in
    /// its targets' order, not their keys'): sorting them too would make the first
    /// fetch after an open pay for sorting every term of the entity.
    mutating func normalizeKeys() {
        if !keysSorted {
            sortedKeys.sort { $0.key < $1.key }
            keysSorted = true
        }
    }

    /// Sorts the term list if writes left it unsorted: what a term range read needs.
    mutating func normalizeTerms() {
        if !termsSorted {
            terms = TermOrder.sorted(terms)
            termsSorted = true
        }
    }

    /// Keys in ascending order from the first ≥ `start` (call `normalizeKeys` first).
    func keys(from start: RecordKey) -> ArraySlice<KeyPosition> {
        var low = 0, high = sortedKeys.count
        while low < high {
            let mid = (low + high) / 2
            if sortedKeys[mid].key < start { low = mid + 1 } else { high = mid }
        }
        return sortedKeys[low...]
    }

    /// The entry at `position` (from `keys(from:)`) as a slot, its blob list not copied.
    func slot(at position: Int32) -> IndexSlot { entries.slot(at: Int(position)) }

    /// The blob references of the entry at `position`.
    func blobs(at position: Int32) -> [BlobRef] { entries.entries[Int(position)].blobs }

    /// The overlay's terms with `index` within the bounds (call `normalizeTerms` first):
    /// the inclusive ascending walk (`orderedTerms`), an exclusive bound's equal terms
    /// passed over.
    func terms(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool, _ body: (IndexTermEntry) -> Void) {
        let lowerValue = lower.map(TermBytes.init), upperValue = upper.map(TermBytes.init)
        orderedTerms(index: index, from: lower, through: upper, descending: false) { t in
            if !lowerInclusive, let lowerValue, t.value == lowerValue { return true }
            if !upperInclusive, let upperValue, t.value == upperValue { return false }
            body(t)
            return true
        }
    }
}

extension IndexOverlay {
    /// The overlay's terms with `index` within the bounds (both inclusive), in term
    /// order or its reverse when `descending`, strictly after `after` in that order,
    /// until `body` returns false (call `normalizeTerms` first): the ordered walk's
    /// share of the overlay. The cursor is found by value and key, as the bounds are.
    func orderedTerms(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, descending: Bool, after: TermEntry? = nil,
                      _ body: (IndexTermEntry) -> Bool) {
        let lowerValue = lower.map(TermBytes.init), upperValue = upper.map(TermBytes.init)
        let cursor = after.map { (value: TermBytes($0.value), key: $0.key) }
        // The first term not before (index, lower), and the first past (index, upper).
        func partition(_ before: (IndexTermEntry) -> Bool) -> Int {
            var low = 0, high = terms.count
            while low < high {
                let mid = (low + high) / 2
                if before(terms[mid]) { low = mid + 1 } else { high = mid }
            }
            return low
        }
        var start = partition { t in t.index < index || (t.index == index && lowerValue.map { t.value < $0 } ?? false) }
        var end = partition { t in t.index < index || (t.index == index && upperValue.map { !($0 < t.value) } ?? true) }
        if let cursor {
            // Ascending, the first term past the cursor; descending, the first not before it.
            let at = partition { t in
                t.index < index || (t.index == index && (t.value != cursor.value ? t.value < cursor.value : t.key < cursor.key || (!descending && t.key == cursor.key)))
            }
            if descending { end = min(end, at) } else { start = max(start, at) }
        }
        guard start < end else { return }
        if descending {
            for i in stride(from: end - 1, through: start, by: -1) where !body(terms[i]) { return }
        } else {
            for i in start..<end where !body(terms[i]) { return }
        }
    }

    /// The greatest overlay key in `lower..<upper` (tombstones included), if any.
    func lastKey(from lower: RecordKey, below upper: RecordKey) -> RecordKey? {
        var best: RecordKey?
        for key in entries.entries.lazy.map(\.key) where key >= lower && key < upper {
            if best.map({ key > $0 }) ?? true { best = key }
        }
        return best
    }
}
