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

    /// The peak resident set of this process alone. `ru_maxrss` will not do on Linux:
    /// a child spawned through vfork starts with its parent's, the test runner's, peak;
    /// `VmHWM` starts again at exec.
    static func peakKiB() -> Int {
        #if os(Linux)
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        #else
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss) / 1_024
        #endif
    }
}
