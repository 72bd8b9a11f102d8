/// One page of an index walked in term order (``LogStore/orderedTermPage(index:from:through:descending:after:limit:)``):
/// the live entries, each term's value with its key located where its current version
/// lies, and where the next page starts.
///
/// A fetch sorted by an indexed attribute with a limit reads pages until its top rows
/// are settled, instead of judging every object of the entity.
package struct OrderedTermPage: Sendable {
    /// The page's distinct values, in the walk's order: entries share their value's
    /// bytes (a page of one department's employees holds one array, not one each).
    package var values: [[UInt8]]
    /// The live entries in the walk's order (ascending by value then key, or
    /// descending by both): each its value's place in `values`, and its key located.
    package var entries: [(valueIndex: Int, located: LocatedKey)]
    /// The last entry this page covers: the next page starts strictly after it. Nil
    /// when the walk is complete.
    package var next: TermEntry?
    /// The store's last committed sequence when the page was listed: a walk whose pages
    /// name different sequences read the index across a commit.
    package var sequence: UInt64

    package init(values: [[UInt8]], entries: [(valueIndex: Int, located: LocatedKey)], next: TermEntry?, sequence: UInt64) {
        self.values = values
        self.entries = entries
        self.next = next
        self.sequence = sequence
    }
}
