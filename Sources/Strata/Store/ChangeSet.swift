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

    /// Creates a change set; the store builds them, tests may too.
    public init(sequence: UInt64, inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        self.sequence = sequence
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}
