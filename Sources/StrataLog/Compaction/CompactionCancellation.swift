import Synchronization

/// Cancels one compaction: the task that asked for it was cancelled. The compaction
/// stops at its next frame (or within a throttle's slice) with `CancellationError`;
/// the groups it already swapped in stay, and later compactions are not affected, as
/// they are by ``LogStore/stopCompaction()``.
package final class CompactionCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    package func cancel() { flag.store(true, ordering: .relaxed) }

    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
