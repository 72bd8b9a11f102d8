import Foundation
import Synchronization

/// One lock per store for the check-then-commit step of `save()`: uniqueness and
/// optimistic-locking checks read the store, and must not be overtaken by another
/// context's commit before this one's. Readers never take it.
///
/// It belongs in `ObjectStore` (one stored lock); it lives here, keyed by the store's
/// identity, until that type grows one. A gate is a few bytes; if a released store's
/// identity is reused, the new store merely shares its gate.
enum SaveGate {
    private static let gates = Mutex<[ObjectIdentifier: NSLock]>([:])

    static func lock(for store: ObjectStore) -> NSLock {
        gates.withLock { gates in
            let id = ObjectIdentifier(store)
            if let gate = gates[id] { return gate }
            let gate = NSLock()
            gates[id] = gate
            return gate
        }
    }
}
