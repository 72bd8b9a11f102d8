#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex, with the `withLock` shape of `Synchronization.Mutex`.
///
/// Why not `Mutex`: on Linux it parks on futexes directly, which the thread sanitizer
/// does not see, so every correctly locked access reads as a race and `make test-tsan`
/// could never pass. pthread mutexes are intercepted by the sanitizer; the cost is the
/// same uncontended.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched between lock and unlock below. For the same
    // reason its accesses are not checked for exclusivity at run time: the mutex
    // already makes them exclusive, and the check (an access set entered and left on
    // every `withLock`) cost as much as the lock itself, on every block-cache lookup.
    @exclusivity(unchecked) private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        #if canImport(Glibc)
        // Adaptive: a thread finding the mutex held spins briefly before it sleeps.
        // The sections guarded here are short (a block-cache lookup is a hash probe),
        // and an index's candidates judged on two threads take the cache's lock for
        // every record: a plain mutex would put the loser to sleep on a futex each
        // time, and waking it costs far more than the section it waited for.
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        #else
        pthread_mutex_init(mutex, nil)
        #endif
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
