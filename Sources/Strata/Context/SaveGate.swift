import Foundation

/// One lock per store for the check-then-commit step of `save()`: uniqueness and
/// optimistic-locking checks read the store, and must not be overtaken by another
/// context's commit before this one's. Readers never take it.
///
/// It belongs in `ObjectStore` (one stored lock); it lives here, keyed by the store's
/// identity, until that type grows one. A gate is a few bytes; if a released store's
/// identity is reused, the new store merely shares its gate.
///
/// `NSLock` (pthread) rather than `Synchronization.Mutex`: on Linux the thread
/// sanitizer does not see `Mutex` (futex based) and reports races inside it.
enum SaveGate {
    private static let registryLock = NSLock()
    /// Guarded by `registryLock`.
    nonisolated(unsafe) private static var gates: [ObjectIdentifier: NSLock] = [:]

    static func lock(for store: ObjectStore) -> NSLock {
        registryLock.lock()
        defer { registryLock.unlock() }
        let id = ObjectIdentifier(store)
        if let gate = gates[id] { return gate }
        let gate = NSLock()
        gates[id] = gate
        return gate
    }
}
