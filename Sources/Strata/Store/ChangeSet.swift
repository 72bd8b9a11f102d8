/// What one committed transaction changed, as store-wide notifications deliver it.
public struct ChangeSet: Sendable, Equatable {
    /// The transaction's sequence number.
    public var sequence: UInt64
    public var inserted: Set<ObjectID>
    public var updated: Set<ObjectID>
    public var deleted: Set<ObjectID>

    public init(sequence: UInt64, inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        self.sequence = sequence
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}
