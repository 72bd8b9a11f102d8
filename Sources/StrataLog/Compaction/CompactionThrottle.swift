#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Holds compaction to a rate of bytes read (`LogStoreOptions.compactionBytesPerSecond`):
/// after each piece of work it sleeps while it is ahead of the rate, so that the
/// average from its start stays at or under it. It holds no lock while it sleeps.
struct CompactionThrottle {
    let bytesPerSecond: Int?
    private let start = ContinuousClock.now
    private var bytes = 0

    init(bytesPerSecond: Int?) {
        self.bytesPerSecond = bytesPerSecond.map { max(1, $0) }
    }

    /// Counts `count` bytes done and sleeps off any lead over the rate (a lead under a
    /// millisecond is left for the next call: sleeps that short cost more than they
    /// hold), in slices, each after `check`, which throws to stop the sleep.
    mutating func paid(_ count: Int, unless check: () throws -> Void) rethrows {
        guard let bytesPerSecond else { return }
        bytes &+= count
        let due = Duration.seconds(Double(bytes) / Double(bytesPerSecond))
        var lead = due - (ContinuousClock.now - start)
        while lead >= .milliseconds(1) {
            try check()
            Self.sleep(min(lead, Self.slice))
            lead = due - (ContinuousClock.now - start)
        }
    }

    /// Counts `count` bytes done and sleeps off any lead over the rate.
    mutating func paid(_ count: Int) {
        paid(count, unless: {})
    }

    /// The longest sleep between two checks of whether to stop.
    static let slice = Duration.milliseconds(20)

    private static func sleep(_ duration: Duration) {
        var request = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// Gives the core up (`sched_yield`) at most every ``interval`` during compaction's
/// stretches of CPU work, at points where it holds no lock that reads or commits take
/// (it holds the compaction gate throughout, which only a backup and close wait for).
/// A compaction thread runs at a lower priority (`ObjectStore.compact`), but Linux's
/// scheduler may still let a running thread finish its slice, milliseconds, before a
/// thread that wakes takes the core: a request's, back from its fsync, would wait that
/// long. When no thread waits, the yield returns at once. `SCHED_IDLE`, which every
/// waking thread preempts at once, would need no yields, but a thread of that class
/// preempted inside the writer or the state lock waits for an idle core.
final class CoreYield {
    static let interval = Duration.microseconds(200)
    private var last = ContinuousClock.now

    func yieldIfDue() {
        let now = ContinuousClock.now
        guard now - last >= Self.interval else { return }
        sched_yield()
        last = ContinuousClock.now
    }
}
