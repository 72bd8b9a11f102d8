import Foundation
import Strata

/// `migrate STORE SEED`: opens the v1 store the test built with the v2 model and the
/// two-stage plan that splits the photos, so the migration runs inside `ObjectStore(...)`, and prints
/// where it is. The test kills it with SIGKILL at a random moment of that open.
struct MigrationWorker {
    var path: String
    /// The seed the test built the store from; the worker only names it in errors.
    var seed: UInt64

    /// Returns after the migration and the close, so the caller exits with nothing of
    /// the store alive: an `exit` from in here left the plan and the store on the
    /// stack, which LeakSanitizer (`make test-asan`) reported as leaks of Strata's code.
    func run() throws {
        // Opening a missing store would create an empty v2 one and "migrate" nothing.
        guard FileManager.default.fileExists(atPath: path + "/MANIFEST") else {
            throw WorkerFailure("no store at \(path): the test builds the v1 store before starting the worker")
        }
        var options = try MigrationWorkload.migrationOptions()
        // One line as the swap begins: kills right after it land in the swap itself,
        // the window a random delay hits least often.
        options.migrationProgress = { progress in
            if progress.pass == .swap { CrashWorker.emit("SWAPPING") }
            // The plan's lightweight stages run in place: said, so the test knows its
            // kills cover them.
            if progress.pass == .inPlace { CrashWorker.emit("IN PLACE \(progress.stage + 1)") }
        }
        let model = try MigrationWorkload.v2()
        CrashWorker.emit("MIGRATING")
        let store: ObjectStore
        do {
            store = try ObjectStore(at: path, model: model, options: options)
        } catch {
            throw WorkerFailure("migrating the store of seed \(seed) at \(path): \(error)")
        }
        CrashWorker.emit("MIGRATED")
        try store.close()
    }
}
