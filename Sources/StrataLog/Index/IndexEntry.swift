/// One key's newest version in one segment, as an index file (FORMAT.md §7.2) or the
/// overlay of the active segment holds it: where the record sits, whether it is a
/// tombstone, and the blob references that keep blob bytes alive.
struct IndexEntry: Equatable, Sendable {
    var key: RecordKey
    var sequence: UInt64
    var isTombstone: Bool
    var location: RecordLocation
    var blobs: [BlobRef]

    /// Bytes this version counts toward its segment's live bytes (FORMAT.md §8).
    var recordBytes: Int64 { Int64(location.recordLength) }

    /// Whether `self` supersedes `other` for the same key: a greater sequence, or the
    /// same sequence later in the log (a key written twice in one transaction).
    func isNewer(than other: IndexEntry) -> Bool {
        IndexSlot.isNewer(sequence, location, than: other.sequence, other.location)
    }
}

extension IndexEntry {
    /// `slot` with the blob references it stands for.
    init(_ slot: IndexSlot, blobs: [BlobRef]) {
        self.init(key: slot.key, sequence: slot.sequence, isTombstone: slot.isTombstone, location: slot.location, blobs: blobs)
    }
}

/// An index entry without its blob references: what a walk compares, chooses and
/// locates by. Trivially copied, where every copy of an `IndexEntry` retains its blob
/// list and every drop releases it (a range walk copies each entry several times, and
/// freeing a decoded block would release each entry's list). The blob references stay
/// beside it, in the block they were decoded from (`blobList`).
struct IndexSlot {
    var key: RecordKey
    var sequence: UInt64
    var isTombstone: Bool
    var location: RecordLocation
    /// The position of this entry's blob references among its block's lists; -1 when
    /// it has none.
    var blobList: Int32

    /// `IndexEntry.isNewer(than:)` for slots.
    func isNewer(than other: IndexSlot) -> Bool {
        Self.isNewer(sequence, location, than: other.sequence, other.location)
    }

    /// Whether a version (sequence, location) supersedes another of the same key: a
    /// greater sequence, or the same sequence later in the log.
    static func isNewer(_ sequence: UInt64, _ location: RecordLocation, than otherSequence: UInt64, _ other: RecordLocation) -> Bool {
        if sequence != otherSequence { return sequence > otherSequence }
        if location.segment != other.segment { return false }
        return (location.frameOffset, location.recordOffset) > (other.frameOffset, other.recordOffset)
    }
}

/// One index term of one version (FORMAT.md §7.3): under index number `index`, the
/// value maps to `key`, valid while the key's current version has `sequence`.
struct IndexTermEntry: Equatable, Sendable {
    var index: UInt32
    var value: TermBytes
    var key: RecordKey
    var sequence: UInt64

    /// The file's order: index, value bytewise, key, then sequence. Always inlined: a
    /// call made the merge's heap copy both items first (it compares them in place).
    @inline(__always)
    static func precedes(_ a: IndexTermEntry, _ b: IndexTermEntry) -> Bool {
        if a.index != b.index { return a.index < b.index }
        let values = TermBytes.order(a.value, b.value)
        if values != 0 { return values < 0 }
        if a.key != b.key { return a.key < b.key }
        return a.sequence < b.sequence
    }
}

extension IndexSlot {
    /// `entry`'s slot, its blob references (if any) at `blobList`. (In an extension, so
    /// the struct keeps its synthesized memberwise initializer.)
    init(_ entry: IndexEntry, blobList: Int32) {
        self.init(key: entry.key, sequence: entry.sequence, isTombstone: entry.isTombstone, location: entry.location,
                  blobList: entry.blobs.isEmpty ? -1 : blobList)
    }
}

extension IndexEntry: SpillSortable {
    /// By key: a sorter gets one entry per key.
    @inline(__always)
    static func spillOrder(_ a: IndexEntry, _ b: IndexEntry) -> Bool { a.key < b.key }
}

extension IndexTermEntry: SpillSortable {
    @inline(__always)
    static func spillOrder(_ a: IndexTermEntry, _ b: IndexTermEntry) -> Bool { precedes(a, b) }
}

/// What ``StoreIndex``'s probe of its files compares: an entry or a slot of one key.
protocol IndexVersion {
    var sequence: UInt64 { get }
    func isNewer(than other: Self) -> Bool
}

extension IndexEntry: IndexVersion {}
extension IndexSlot: IndexVersion {}
