import StrataLog

/// The change sets of ``ObjectStore/changes()``: every committed transaction, in
/// commit order, from the moment it was made; ``ObjectStore/close()-32zno`` ends it.
///
/// It holds up to ``StoreOptions/changeBufferLimit`` change sets its consumer has not
/// taken. Those committed while it is full are dropped, never silently: the next
/// change set it delivers names them in ``ChangeSet/missed`` — a later transaction's,
/// or, once the consumer has caught up with no later one to carry them (or the store
/// closed), one of its own that changed no objects.
public struct ChangeStream: AsyncSequence, Sendable {
    public typealias Element = ChangeSet
    public typealias Failure = Never

    let base: AsyncStream<ChangeSet>
    let observer: ChangeObserver

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), observer: observer)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<ChangeSet>.Iterator
        let observer: ChangeObserver

        public mutating func next() async -> ChangeSet? {
            // Dropped sets with nothing buffered to carry them: told now, not when the
            // next commit comes, which may be never.
            if let notice = observer.takeMissedIfDrained() { return notice }
            guard let change = await base.next() else { return observer.takeMissedIfDrained() }
            observer.taken()
            return change
        }
    }
}

/// One consumer of ``ObjectStore/changes()``: its stream, how many change sets wait in
/// it, and the sequences dropped while it was full.
///
/// The stream's own buffer is unbounded; this count bounds it, because only the count
/// tells how much room there is (a bounded `AsyncStream` drops without saying so until
/// the consumer takes one, and never says anything to a consumer that has caught up).
final class ChangeObserver: Sendable {
    private struct State {
        var buffered = 0
        var missed: ClosedRange<UInt64>?
    }

    let continuation: AsyncStream<ChangeSet>.Continuation
    private let limit: Int
    private let state = Locked(State())

    init(continuation: AsyncStream<ChangeSet>.Continuation, limit: Int) {
        self.continuation = continuation
        self.limit = max(1, limit)
    }

    /// Yields `change`, naming what was dropped before it; a change set that finds
    /// the buffer full joins the missed range instead.
    func deliver(_ change: ChangeSet) {
        state.withLock { s in
            guard s.buffered < limit else {
                s.missed = min(s.missed?.lowerBound ?? change.sequence, change.sequence) ... max(s.missed?.upperBound ?? change.sequence, change.sequence)
                return
            }
            var change = change
            change.missed = s.missed
            if case .enqueued = continuation.yield(change) {
                s.buffered += 1
                s.missed = nil
            }
        }
    }

    /// The consumer took a change set from the stream.
    func taken() {
        state.withLock { $0.buffered -= 1 }
    }

    /// The missed range as a change set of its own, when nothing buffered would carry it.
    func takeMissedIfDrained() -> ChangeSet? {
        state.withLock { s in
            guard s.buffered == 0, let missed = s.missed else { return nil }
            s.missed = nil
            return ChangeSet(sequence: missed.upperBound, missed: missed)
        }
    }
}
