/// A live key as an index read listed it, with where its current version was at that
/// moment: ``LogStore/visitRecords(located:_:)`` then reads the record without looking
/// the key up a second time (a query through an index spent a third of its time on
/// that second lookup).
///
/// A key the caller adds itself (`LocatedKey(key)`) carries no location and is looked
/// up when visited, as is a listed key whose segment a compaction has since retired.
public struct LocatedKey: Sendable {
    public let key: RecordKey
    /// The version found by the listing; nil for a key added by the caller.
    let entry: IndexEntry?

    /// A key without a location: looked up when visited.
    public init(_ key: RecordKey) {
        self.key = key
        entry = nil
    }

    init(_ entry: IndexEntry) {
        key = entry.key
        self.entry = entry
    }
}
