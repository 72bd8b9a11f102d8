import Foundation

/// A unique directory for one run's stores, removed by `remove()`. It lives under
/// `STRATA_BENCH_DIR` when set, else under the system's temporary directory — keep
/// it on the disk whose fsync you mean to measure.
public struct ScratchDirectory: Sendable {
    public let path: String

    public init(_ label: String) throws {
        let base = ProcessInfo.processInfo.environment["STRATA_BENCH_DIR"] ?? NSTemporaryDirectory()
        path = (base as NSString).appendingPathComponent("strata-bench-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
