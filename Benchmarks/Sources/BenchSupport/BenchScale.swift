import Foundation

/// How big the workloads are: N = 10,000 employees by default, 1,000,000 when the
/// environment sets `STRATA_BENCH_FULL=1` (`make bench-full`).
public enum BenchScale {
    public static var isFull: Bool { ProcessInfo.processInfo.environment["STRATA_BENCH_FULL"] == "1" }

    /// Employees in the insert, fetch and open workloads.
    public static var employees: Int {
        if let text = ProcessInfo.processInfo.environment["STRATA_BENCH_EMPLOYEES"], let n = Int(text), n > 0 { return n }
        return isFull ? 1_000_000 : 10_000
    }

    /// Single-object durable transactions (fixed by the issue).
    public static let singleCommits = 10_000
    /// Random lookups in the fetch-by-id workload (fixed by the issue).
    public static let lookups = 100_000

    /// "10k", "1M": for benchmark names.
    public static func label(_ n: Int) -> String {
        if n >= 1_000_000, n % 1_000_000 == 0 { return "\(n / 1_000_000)M" }
        if n >= 1_000, n % 1_000 == 0 { return "\(n / 1_000)k" }
        return "\(n)"
    }
}
