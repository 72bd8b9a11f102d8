import StrataLog

/// The sort key paths of a store's fetches already found valid for their entity, so
/// that a request sorted the same way again (every page of a list, every department's
/// top earners) does not check them again. Whether a key path names a sortable
/// attribute depends only on the entity and the store's model, which never changes
/// while the store is open. Checking one builds and validates a predicate, copying the
/// model and the entity description, for every sort key of every fetch. A hit costs a
/// hash and a lock.
///
/// Bounded at 1,024 key paths (`BoundedMemo`). A key path that fails its check is not
/// kept (its error is raised each time).
final class CheckedSortKeys: Sendable {
    private struct Checked: Hashable, Sendable {
        let entity: String
        let keyPath: String
    }

    private let checked = BoundedMemo<Checked, Bool>(capacity: 1_024)

    /// Runs `check` unless `keyPath` of `entity` passed it before, and remembers a pass.
    func check(_ keyPath: String, of entity: String, _ check: () throws -> Void) rethrows {
        _ = try checked.answer(Checked(entity: entity, keyPath: keyPath)) {
            try check()
            return true
        }
    }

    /// How many key paths are kept (for tests of the bound).
    var count: Int { checked.count }
}
