import Foundation
import Strata

/// `layouts STORE SEED`: opens the store the test built — scenario 1's v1, migrated in
/// place to `MigrationWorkload.v1Plus()`, so that its records are of two layouts — and
/// compacts it: the older layout's records are written again in the current one, step
/// by step, then the layout leaves the table. Prints `COMPACTING`, `SWAP n` before each
/// step's swap, and `COMPACTED`. The test kills it with SIGKILL at a random moment.
struct LayoutRewriteWorker {
    var path: String
    /// The seed the test built the store from; the worker only names it in errors.
    var seed: UInt64

    func run() throws {
        guard FileManager.default.fileExists(atPath: path + "/MANIFEST") else {
            throw WorkerFailure("no store at \(path): the test builds the store before starting the worker")
        }
        var options = MigrationWorkload.options()
        // Groups of a few segments: the compaction takes several steps.
        options.log.compactionBatchBytes = 48 << 10
        let store = try ObjectStore(at: path, model: MigrationWorkload.v1Plus(), options: options)
        guard let log = store.segmentLog else { throw WorkerFailure("the store of seed \(seed) at \(path) is not a segment log") }
        log.compactionWillSwap.withLock { $0 = { step in CrashWorker.emit("SWAP \(step)") } }
        CrashWorker.emit("COMPACTING")
        // What `ObjectStore.compact()` does, on this thread.
        try store.records.compact(force: false)
        _ = try store.dropRewrittenLayouts()
        CrashWorker.emit("COMPACTED")
        try store.close()
    }
}
