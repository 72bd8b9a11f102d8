/// One entry of a secondary index: a term value and a key whose current version
/// carries it. Entries order by value (bytewise), then key, which is the order in
/// which ``LogStore/termEntries(index:prefix:after:limit:)`` pages through them.
///
/// The object layer reads relationship edges this way: an edge's terms hold both
/// ends' keys, so listing a to-many reads index entries and never the edge records.
package struct TermEntry: Hashable, Sendable, Comparable {
    package var value: [UInt8]
    package var key: RecordKey

    package init(value: [UInt8], key: RecordKey) {
        self.value = value
        self.key = key
    }

    package static func < (a: TermEntry, b: TermEntry) -> Bool {
        if a.value != b.value { return a.value.lexicographicallyPrecedes(b.value) }
        return a.key < b.key
    }
}
