import StrataLog

/// Wakes the feeds of ``ObjectStore/changes(after:)`` as this process commits: a
/// signal, not a change set (a feed reads what changed from the history), so that a
/// feed costs the commits nothing but a yield, and a stalled one holds one signal.
final class CommitSignal: Sendable {
    private let waiters = Locked<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextID = Locked(0)

    /// A stream that yields after each commit from now on (at most one held).
    func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextID.withLock { n -> Int in n += 1; return n }
        continuation.onTermination = { [weak self] _ in self?.waiters.withLock { $0[id] = nil } }
        waiters.withLock { $0[id] = continuation }
        return stream
    }

    func signal() {
        waiters.withLock { waiters in for continuation in waiters.values { continuation.yield() } }
    }

    /// Ends every stream: the store is closing.
    func finish() {
        let all = waiters.withLock { w -> [AsyncStream<Void>.Continuation] in defer { w = [:] }; return Array(w.values) }
        for continuation in all { continuation.finish() }
    }
}
