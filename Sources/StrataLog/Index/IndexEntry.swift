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
        if sequence != other.sequence { return sequence > other.sequence }
        if location.segment != other.location.segment { return false }
        return (location.frameOffset, location.recordOffset) > (other.location.frameOffset, other.location.recordOffset)
    }
}

/// One index term of one version (FORMAT.md §7.3): under index number `index`, the
/// value maps to `key`, valid while the key's current version has `sequence`.
struct IndexTermEntry: Equatable, Sendable {
    var index: UInt32
    var value: TermBytes
    var key: RecordKey
    var sequence: UInt64

    /// The file's order: index, value bytewise, key, then sequence.
    static func precedes(_ a: IndexTermEntry, _ b: IndexTermEntry) -> Bool {
        if a.index != b.index { return a.index < b.index }
        if a.value != b.value { return a.value < b.value }
        if a.key != b.key { return a.key < b.key }
        return a.sequence < b.sequence
    }
}
