/// A live key as an index read listed it, with where its current version was at that
/// moment: ``LogStore/visitRecords(located:_:)`` then reads the record without looking
/// the key up a second time (for a query through an index, that second lookup would
/// cost about as much as the rest of the query).
///
/// A key the caller adds itself (`LocatedKey(key)`) carries no location and is looked
/// up when visited, as is a listed key whose segment a compaction has since retired.
package struct LocatedKey: Sendable {
    package let key: RecordKey
    /// The version found by the listing (its sequence and location, no blob
    /// references: reading the record needs none); nil for a key added by the caller.
    /// Trivially copied: holding the whole `IndexEntry` retained and released its blob
    /// list each time a candidate was listed, handed to the visit and dropped.
    let version: (sequence: UInt64, location: RecordLocation)?

    /// A key without a location: looked up when visited.
    package init(_ key: RecordKey) {
        self.key = key
        version = nil
    }

    init(_ entry: IndexEntry) {
        key = entry.key
        version = (entry.sequence, entry.location)
    }

    init(_ slot: IndexSlot) {
        key = slot.key
        version = (slot.sequence, slot.location)
    }
}
