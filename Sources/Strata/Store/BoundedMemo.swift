import StrataLog

/// Answers already worked out, shared across threads and bounded: the predicate
/// formats' tokens (`PredicateTokenCache`) and the sort key paths found valid
/// (`CheckedSortKeys`). At `capacity` answers it starts afresh, which is enough for the
/// literals and key paths a program uses and keeps caller-made ones from growing it
/// without end. A question whose working out throws is not kept: its error is raised
/// each time. A hit costs a hash of the key and a lock.
final class BoundedMemo<Key: Hashable & Sendable, Answer: Sendable>: Sendable {
    private let capacity: Int
    private let answers = Locked<[Key: Answer]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The answer kept for `key`, or the one `workOut` gives, kept.
    func answer(_ key: Key, _ workOut: () throws -> Answer) rethrows -> Answer {
        if let kept = answers.withLock({ $0[key] }) { return kept }
        let answer = try workOut()
        answers.withLock { answers in
            if answers.count >= capacity { answers.removeAll(keepingCapacity: true) }
            answers[key] = answer
        }
        return answer
    }

    /// How many answers are kept (for tests of the bound).
    var count: Int { answers.withLock { $0.count } }
}
