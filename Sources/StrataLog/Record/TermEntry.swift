/// One entry of a secondary index: a term value and a key whose current version
/// carries it. Entries order by value (bytewise), then key, which is the order in
/// which ``LogStore/termEntries(index:prefix:after:limit:)`` pages through them.
///
/// The object layer reads relationship edges this way: an edge's terms hold both
/// ends' keys, so listing a to-many reads index entries and never the edge records.
public struct TermEntry: Hashable, Sendable, Comparable {
    public var value: [UInt8]
    public var key: RecordKey

    public init(value: [UInt8], key: RecordKey) {
        self.value = value
        self.key = key
    }

    public static func < (a: TermEntry, b: TermEntry) -> Bool {
        if a.value != b.value { return a.value.lexicographicallyPrecedes(b.value) }
        return a.key < b.key
    }
}
