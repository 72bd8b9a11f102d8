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

/// One consumer of ``ObjectStore/changes()``: its stream and the sequences it missed
/// while its buffer was full. Used only under the store's observers lock.
final class ChangeObserver: @unchecked Sendable {
    // @unchecked: `missed` is read and written only under `ObjectStore.observers`' lock.
    let continuation: AsyncStream<ChangeSet>.Continuation
    private var missed: ClosedRange<UInt64>?

    init(continuation: AsyncStream<ChangeSet>.Continuation) {
        self.continuation = continuation
    }

    /// Yields `change`, naming what was dropped before it; a change set the full
    /// buffer drops joins the missed range instead.
    func deliver(_ change: ChangeSet) {
        var change = change
        if let missed { change.missed = missed.lowerBound ... max(missed.upperBound, change.missed?.upperBound ?? 0) }
        switch continuation.yield(change) {
        case .enqueued:
            missed = nil
        case .dropped:
            let lower = min(missed?.lowerBound ?? change.sequence, change.sequence)
            missed = lower ... max(missed?.upperBound ?? change.sequence, change.sequence)
        case .terminated:
            break
        @unknown default:
            break
        }
    }
}
