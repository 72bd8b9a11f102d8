import Foundation
import StrataLog

/// `readonly STORE LIMIT`: opens the store the test built read-only, with
/// `overlayEntryLimit` LIMIT, and prints `OPENED count peakKiB`: its live records and
/// the process's peak resident set after the open. The test judges what an open held
/// in memory by that peak, which a process of its own measures alone.
struct ReadOnlyOpenWorker {
    var path: String
    var overlayEntryLimit: Int

    func run() throws {
        var options = LogStoreOptions()
        options.readOnly = true
        options.overlayEntryLimit = overlayEntryLimit
        let store = try LogStore.open(at: path, options: options)
        let count = store.count
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        CrashWorker.emit("OPENED \(count) \(usage.ru_maxrss)")
        try store.close()
    }
}
