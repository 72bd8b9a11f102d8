import Foundation
import StrataLog

/// `readonly STORE LIMIT`: opens the store the test built read-only, with
/// `overlayEntryLimit` LIMIT, and prints `OPENED count peakKiB` (its live records and
/// the process's peak resident set after the open), then verifies it and prints
/// `VERIFIED problems peakKiB`. The test judges what an open and a verification held
/// in memory by those peaks, which a process of its own measures alone.
struct ReadOnlyOpenWorker {
    var path: String
    var overlayEntryLimit: Int

    func run() throws {
        var options = LogStoreOptions()
        options.readOnly = true
        options.overlayEntryLimit = overlayEntryLimit
        let store = try LogStore.open(at: path, options: options)
        CrashWorker.emit("OPENED \(store.count) \(Self.peakKiB())")
        let report = try store.verify()
        CrashWorker.emit("VERIFIED \(report.problems.count) \(Self.peakKiB())")
        try store.close()
    }

    static func peakKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
