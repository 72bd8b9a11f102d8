import Dispatch
import StrataLog

/// The second half of a batch insert from a handler, on a second thread: each checked
/// object's key allocated, its record encoded and put in the chunk's batch, while the
/// caller's thread asks the handler for the next objects and checks them.
///
/// Done in turn on one thread, asking, checking and encoding would leave a second
/// core idle. Objects go over in runs of `runLength`, at most `runsInFlight` runs ahead,
/// so memory is a few runs of fields, not the chunk's.
///
/// Everything checkable is checked on the caller's thread, in the objects' order,
/// before the object is handed over (values, uniqueness, required relationships), so
/// an error names the same object as on one thread and the handler is not asked past it.
/// What can fail here (the entity's serials running out) is thrown by `finish`.
///
/// The state below is touched by the encoding thread between `submit` and the
/// dispatch group's wait in `finish` or `abandon`, and by the caller's thread only
/// after that wait (which orders the two), so its exclusivity is not checked at run
/// time.
final class BatchInsertEncoder: @unchecked Sendable {
    /// Objects per hand-over: enough that a hand-over's cost is spread thin.
    static let runLength = 256
    /// Runs handed over and not yet encoded, at most: the caller waits past this.
    static let runsInFlight = 4

    private let store: ObjectStore
    private let layout: StoreSchema.EntityLayout
    private let entityName: String
    private let observed: Bool
    private let queue = DispatchQueue(label: "strata.batch-insert")
    private let group = DispatchGroup()
    private let slots = DispatchSemaphore(value: BatchInsertEncoder.runsInFlight)
    @exclusivity(unchecked) private var batch = WriteBatch()
    /// The ids of the objects encoded, when observers want them.
    @exclusivity(unchecked) private(set) var ids: [ObjectID] = []
    /// The keys encoded, when history is tracked.
    @exclusivity(unchecked) private(set) var inserted: InsertedKeys
    /// The serials the keys come from (given back by the insert when it ends).
    @exclusivity(unchecked) private(set) var keys = ObjectStore.KeyRun()
    @exclusivity(unchecked) private var failure: (any Error)?
    /// Runs encoded, their field arrays handed back for the caller's next objects:
    /// freed here, each array allocated on the caller's thread would be freed on this
    /// one, and the two threads' allocators would take each other's locks (and a fresh
    /// array per object is an allocation the caller need not pay).
    private let spent = Locked<[[[FieldValue]]]>([])

    init(store: ObjectStore, layout: StoreSchema.EntityLayout, entityName: String, observed: Bool) {
        self.store = store
        self.layout = layout
        self.entityName = entityName
        self.observed = observed
        self.inserted = InsertedKeys(tracking: store.tracksHistory)
    }

    /// Hands checked objects' fields over, in order; waits while `runsInFlight` runs
    /// are still to be encoded.
    func submit(_ run: [[FieldValue]]) {
        guard !run.isEmpty else { return }
        slots.wait()
        queue.async(group: group) { [self] in
            defer { slots.signal() }
            guard failure == nil else { return }
            do {
                for fields in run { try encode(fields) }
            } catch {
                failure = error
            }
            spent.withLock { $0.append(run) }
        }
    }

    /// Field arrays of objects already encoded, to fill with the next objects' (empty
    /// when none is back yet).
    func spentFields() -> [[FieldValue]] {
        spent.withLock { runs in runs.popLast() ?? [] }
    }

    /// No field is a blob reference (entities with external binaries are not handed
    /// over), so the encoder never reads a blob.
    private func encode(_ fields: [FieldValue]) throws {
        try store.putInserted(fields, layout: layout, entityName: entityName, observed: observed, keys: &keys, batch: &batch, ids: &ids, inserted: &inserted)
    }

    /// Waits for every object handed over; returns the chunk's batch (the next chunk
    /// starts an empty one), or throws what encoding one of them threw.
    func finish() throws -> WriteBatch {
        group.wait()
        if let failure { throw failure }
        defer { batch = WriteBatch() }
        return batch
    }

    /// Waits for the objects handed over and drops them: the insert failed.
    func abandon() {
        group.wait()
        batch = WriteBatch()
    }
}
