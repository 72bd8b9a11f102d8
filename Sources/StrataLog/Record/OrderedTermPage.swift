/// One page of an index walked in term order (``LogStore/orderedTermPage(index:from:through:descending:after:limit:)``):
/// the live entries, each term's value with its key located where its current version
/// lies, and where the next page starts.
///
/// A fetch sorted by an indexed attribute with a limit reads pages until its top rows
/// are settled, instead of judging every object of the entity.
public struct OrderedTermPage: Sendable {
    /// The live entries in the walk's order: ascending by value then key, or
    /// descending by both.
    public var entries: [(value: [UInt8], located: LocatedKey)]
    /// The last entry this page covers: the next page starts strictly after it. Nil
    /// when the walk is complete.
    public var next: TermEntry?
    /// The store's last committed sequence when the page was listed: a walk whose pages
    /// name different sequences read the index across a commit.
    public var sequence: UInt64

    public init(entries: [(value: [UInt8], located: LocatedKey)], next: TermEntry?, sequence: UInt64) {
        self.entries = entries
        self.next = next
        self.sequence = sequence
    }
}
