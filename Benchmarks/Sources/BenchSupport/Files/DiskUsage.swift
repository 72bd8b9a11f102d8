import Foundation
import Synchronization

/// Disk space a directory tree takes: allocated blocks (`st_blocks`), not apparent sizes.
public enum DiskUsage {
    public static func bytes(at path: String) -> Int {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        var total = Int(info.st_blocks) * 512
        guard (info.st_mode & S_IFMT) == S_IFDIR,
              let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return total }
        for name in names { total += bytes(at: (path as NSString).appendingPathComponent(name)) }
        return total
    }
}

/// Samples a directory's disk use on a thread of its own every `interval` while a
/// workload runs, and keeps the largest: how much extra disk a migration needs at its
/// peak (staging store, WAL…). A peak shorter than the interval can be missed.
public final class DiskSampler: Sendable {
    private let path: String
    private let interval: Duration
    private let state = Mutex<(largest: Int, stop: Bool, stopped: Bool)>((0, false, false))

    public init(path: String, interval: Duration = .milliseconds(20)) {
        self.path = path
        self.interval = interval
    }

    /// Starts sampling; returns the use at the start.
    @discardableResult
    public func start() -> Int {
        let first = DiskUsage.bytes(at: path)
        state.withLock { $0 = (first, false, false) }
        let thread = Thread { [self] in
            while !state.withLock({ $0.stop }) {
                let now = DiskUsage.bytes(at: path)
                state.withLock { $0.largest = max($0.largest, now) }
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) * 1e-18 + Double(interval.components.seconds))
            }
            state.withLock { $0.stopped = true }
        }
        thread.start()
        return first
    }

    /// Stops sampling (after one last sample) and returns the largest use seen.
    public func stop() -> Int {
        state.withLock { $0.stop = true }
        while !state.withLock({ $0.stopped }) { Thread.sleep(forTimeInterval: 0.001) }
        let last = DiskUsage.bytes(at: path)
        return state.withLock { max($0.largest, last) }
    }
}
