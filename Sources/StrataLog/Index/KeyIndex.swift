/// Key → newest version, kept in memory (the Bitcask "keydir"), plus the secondary
/// index of terms and the live-byte accounting compaction uses.
///
/// Tombstones stay in the index as entries so that compaction knows a delete is
/// still the current state of a key and drops it only when no older version can
/// resurface.
///
/// A key's index terms are not kept beside its entry: when a newer version replaces
/// one that had terms, the caller reads them back from the replaced record (it is
/// on disk, usually in the page cache). Keeping them cost about a third of this
/// index's memory, for every object of the store, to speed up only overwrites.
struct KeyIndex {
    struct Entry: Sendable, Equatable {
        var sequence: UInt64
        var location: RecordLocation
        var isTombstone: Bool
        /// Whether the record carries index terms, which must leave the term index
        /// when a newer version replaces it.
        var hasTerms = false
    }

    private(set) var entries: [RecordKey: Entry] = [:]
    /// Blob references of the current version, for keys that have any.
    private(set) var blobs: [RecordKey: [BlobRef]] = [:]
    private(set) var termIndex = TermIndex()
    /// Bytes of current versions per segment / per blob file, for garbage ratios.
    private(set) var liveBytesBySegment: [UInt32: Int64] = [:]
    private(set) var liveBytesByBlobFile: [UInt32: Int64] = [:]
    private(set) var liveCount = 0
    private var sortedKeys = SortedKeys()

    var count: Int { liveCount }

    func entry(_ key: RecordKey) -> Entry? { entries[key] }

    func blobRefs(_ key: RecordKey) -> [BlobRef] { blobs[key] ?? [] }

    /// Makes room for `keys` more keys before a hint file is applied: the table then
    /// grows once to its final size instead of doubling step by step, each step
    /// rehashing everything and briefly holding the old table beside the new one.
    mutating func reserve(keys: Int) {
        entries.reserveCapacity(entries.count + keys)
        sortedKeys.reserve(keys)
    }

    /// Applies a version when it is newer than what the index holds; returns whether it did.
    ///
    /// - Parameter previousTerms: the index terms of the version being replaced, asked
    ///   for only when it has some; nil when they cannot be read (a damaged record),
    ///   and the key then leaves every term it is filed under, a slow but exact path.
    @discardableResult
    mutating func apply(key: RecordKey, sequence: UInt64, isTombstone: Bool, location: RecordLocation, blobs newBlobs: [BlobRef], terms: [IndexTerm],
                        previousTerms: (Entry) -> [IndexTerm]?) -> Bool {
        // One hash of the key, not a lookup and then an insert: the new entry goes in
        // first, and in the rare case the old one was newer it is put back.
        let entry = Entry(sequence: sequence, location: location, isTombstone: isTombstone, hasTerms: !terms.isEmpty)
        if let old = entries.updateValue(entry, forKey: key) {
            guard old.sequence <= sequence, !(old.sequence == sequence && old.location == location) else {
                entries[key] = old
                return false
            }
            if old.hasTerms, let oldTerms = previousTerms(old) {
                removeAccounting(key: key, entry: old, terms: oldTerms)
            } else {
                if old.hasTerms { termIndex.removeEverywhere(key) }
                removeAccounting(key: key, entry: old, terms: [])
            }
        } else {
            sortedKeys.insert(key)
        }
        liveBytesBySegment[location.segment, default: 0] += Int64(location.recordLength)
        if !isTombstone { liveCount += 1 }
        if !newBlobs.isEmpty {
            blobs[key] = newBlobs
            for blob in newBlobs { liveBytesByBlobFile[blob.file, default: 0] += Int64(blob.length) + Int64(Format.blobEntryHeaderSize) }
        }
        for term in terms { termIndex.insert(index: term.index, value: TermBytes(term.value), key: key) }
        return true
    }

    /// Moves a version to a new location (compaction) if it is still the current one.
    @discardableResult
    mutating func relocate(key: RecordKey, sequence: UInt64, from old: RecordLocation, to new: RecordLocation, blobs newBlobs: [BlobRef]) -> Bool {
        guard var entry = entries[key], entry.sequence == sequence, entry.location == old else { return false }
        liveBytesBySegment[old.segment, default: 0] -= Int64(old.recordLength)
        liveBytesBySegment[new.segment, default: 0] += Int64(new.recordLength)
        entry.location = new
        entries[key] = entry
        let oldBlobs = blobs[key] ?? []
        if oldBlobs != newBlobs {
            for blob in oldBlobs { liveBytesByBlobFile[blob.file, default: 0] -= Int64(blob.length) + Int64(Format.blobEntryHeaderSize) }
            for blob in newBlobs { liveBytesByBlobFile[blob.file, default: 0] += Int64(blob.length) + Int64(Format.blobEntryHeaderSize) }
            blobs[key] = newBlobs.isEmpty ? nil : newBlobs
        }
        return true
    }

    /// Forgets a tombstone that compaction dropped, if it is still the current state.
    mutating func forgetTombstone(key: RecordKey, sequence: UInt64) {
        guard let entry = entries[key], entry.isTombstone, entry.sequence == sequence else { return }
        removeAccounting(key: key, entry: entry, terms: [])
        entries[key] = nil
        sortedKeys.markRemoved()
    }

    private mutating func removeAccounting(key: RecordKey, entry: Entry, terms: [IndexTerm]) {
        liveBytesBySegment[entry.location.segment, default: 0] -= Int64(entry.location.recordLength)
        if !entry.isTombstone { liveCount -= 1 }
        if let old = blobs.removeValue(forKey: key) {
            for blob in old { liveBytesByBlobFile[blob.file, default: 0] -= Int64(blob.length) + Int64(Format.blobEntryHeaderSize) }
        }
        for term in terms { termIndex.remove(index: term.index, value: TermBytes(term.value), key: key) }
    }

    /// Live keys in `range`, ascending.
    mutating func keys(in range: Range<RecordKey>?) -> [RecordKey] {
        sortedKeys.normalize(dropping: { entries[$0] == nil })
        // Without a tombstone every key listed is live: no lookup per key.
        if !hasTombstones { return Array(sortedKeys.keys(in: range)) }
        return sortedKeys.keys(in: range).filter { entries[$0].map { !$0.isTombstone } ?? false }
    }

    /// Whether any entry is a tombstone (every other entry counts in `liveCount`).
    private var hasTombstones: Bool { entries.count != liveCount }

    /// Live keys in `range`, ascending, at most `limit` of them starting after `after`.
    mutating func keys(in range: Range<RecordKey>?, after: RecordKey?, limit: Int) -> [RecordKey] {
        guard limit > 0 else { return [] }
        sortedKeys.normalize(dropping: { entries[$0] == nil })
        if !hasTombstones { return Array(sortedKeys.keys(in: range, after: after).prefix(limit)) }
        var result: [RecordKey] = []
        for key in sortedKeys.keys(in: range, after: after) {
            if let entry = entries[key], !entry.isTombstone {
                result.append(key)
                if result.count == limit { break }
            }
        }
        return result
    }

    /// Keys whose current version carries exactly this term.
    func keys(for term: IndexTerm) -> [RecordKey] { termIndex.keys(for: term) }

    /// Keys whose term under `index` lies in `lower…upper` (bytewise), either bound optional.
    mutating func keys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) -> [RecordKey] {
        termIndex.keys(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive)
    }

    /// A page of the term entries of `index` under `prefix`, after `after`.
    mutating func termEntries(index: UInt32, prefix: [UInt8], after: TermEntry?, limit: Int) -> [TermEntry] {
        termIndex.entries(index: index, prefix: prefix, after: after, limit: limit)
    }

    /// Every entry (live or tombstone), for compaction's liveness checks and verify.
    var allEntries: [RecordKey: Entry] { entries }
}

/// Keys in ascending order for range iteration. Keys the object layer allocates grow
/// monotonically, so inserts are usually appends; anything else marks the array for
/// a re-sort on the next range read.
struct SortedKeys {
    private var keys: [RecordKey] = []
    private var sorted = true
    private var removed = 0

    mutating func insert(_ key: RecordKey) {
        if let last = keys.last, key <= last { sorted = false }
        keys.append(key)
    }

    mutating func markRemoved() { removed += 1 }

    /// Geometric, as appending is: `reserveCapacity` alone allocates exactly what it is
    /// asked, and a reserve per commit would then copy the array every time.
    mutating func reserve(_ more: Int) {
        let needed = keys.count + more
        if needed > keys.capacity { keys.reserveCapacity(max(needed, keys.capacity * 2)) }
    }

    mutating func normalize(dropping isGone: (RecordKey) -> Bool) {
        if removed > 0 {
            keys.removeAll(where: isGone)
            removed = 0
        }
        if !sorted {
            keys.sort()
            var unique: [RecordKey] = []
            unique.reserveCapacity(keys.count)
            for key in keys where unique.last != key { unique.append(key) }
            keys = unique
            sorted = true
        }
    }

    func keys(in range: Range<RecordKey>?, after: RecordKey? = nil) -> ArraySlice<RecordKey> {
        var lower = range?.lowerBound ?? RecordKey(0)
        if let after, after >= lower { lower = RecordKey(after.rawValue &+ 1) }
        if let after, after.rawValue == .max { return [] }
        let start = firstIndex(notBelow: lower)
        let end = range.map { firstIndex(notBelow: $0.upperBound) } ?? keys.count
        return start < end ? keys[start..<end] : []
    }

    private func firstIndex(notBelow key: RecordKey) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
