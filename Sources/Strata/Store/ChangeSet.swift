/// What one committed transaction changed, as store-wide notifications deliver it.
public struct ChangeSet: Sendable, Equatable {
    /// The transaction's sequence number.
    public var sequence: UInt64
    /// Objects the transaction inserted.
    public var inserted: Set<ObjectID>
    /// Objects the transaction wrote a new version of.
    public var updated: Set<ObjectID>
    /// Objects the transaction deleted.
    public var deleted: Set<ObjectID>
    /// The sequences of change sets dropped just before this one because the consumer
    /// of ``ObjectStore/changes()`` fell behind (its buffer was full); nil when none were.
    /// A consumer that caches objects should reload what it holds.
    ///
    /// When the consumer has taken every change set buffered and no later one has come
    /// to carry the dropped range, the stream delivers it alone: a change set of no
    /// objects whose ``sequence`` is the range's last.
    public var missed: ClosedRange<UInt64>?

    /// Creates a change set; only the store builds them.
    package init(sequence: UInt64, inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [],
                missed: ClosedRange<UInt64>? = nil) {
        self.sequence = sequence
        self.missed = missed
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}
