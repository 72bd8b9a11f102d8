import Foundation

/// How big the workloads are: N = 10,000 employees by default, 1,000,000 when the
/// environment sets `STRATA_BENCH_FULL=1` (`make bench-full`).
public enum BenchScale {
    public static var isFull: Bool { ProcessInfo.processInfo.environment["STRATA_BENCH_FULL"] == "1" }

    /// Employees in the insert, fetch and open workloads.
    public static var employees: Int {
        if let n = environmentCount("STRATA_BENCH_EMPLOYEES") { return n }
        return isFull ? 1_000_000 : 10_000
    }

    /// Employees of the photo list (scenario 1, 64 KiB photos): the full 20,000
    /// under `STRATA_BENCH_FULL`, 5,000 by default (1.25 GiB, resp. 320 MiB of photos per
    /// side); `STRATA_BENCH_PHOTO_EMPLOYEES` overrides.
    public static var photoEmployees: Int {
        if let n = environmentCount("STRATA_BENCH_PHOTO_EMPLOYEES") { return n }
        return isFull ? 20_000 : 5_000
    }

    /// Employees of the photo-split migration with 1 KiB photos inline (variant a): 10k,
    /// and 100k and 1M under `STRATA_BENCH_FULL` (`STRATA_BENCH_MIGRATION_EMPLOYEES`
    /// overrides, comma-separated).
    public static var inlineMigrationEmployees: [Int] {
        if let text = ProcessInfo.processInfo.environment["STRATA_BENCH_MIGRATION_EMPLOYEES"] {
            let counts = text.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            if !counts.isEmpty { return counts }
        }
        return isFull ? [10_000, 100_000, 1_000_000] : [10_000]
    }

    /// Employees of the photo-split migration with 64 KiB photos in the blob area
    /// (variant b): the full 10,000 (640 MiB of photos per side); 2,000 by default in
    /// package-benchmark to keep `make bench` short (`STRATA_BENCH_BLOB_MIGRATION_EMPLOYEES`).
    public static func blobMigrationEmployees(packageBenchmark: Bool) -> Int {
        if let n = environmentCount("STRATA_BENCH_BLOB_MIGRATION_EMPLOYEES") { return n }
        return packageBenchmark && !isFull ? 2_000 : 10_000
    }

    static func environmentCount(_ name: String) -> Int? {
        guard let text = ProcessInfo.processInfo.environment[name], let n = Int(text), n > 0 else { return nil }
        return n
    }

    /// Single-object durable transactions (fixed, whatever N).
    public static let singleCommits = 10_000
    /// Random lookups in the fetch-by-id workload (fixed, whatever N).
    public static let lookups = 100_000

    /// "10k", "1M": for benchmark names.
    public static func label(_ n: Int) -> String {
        if n >= 1_000_000, n % 1_000_000 == 0 { return "\(n / 1_000_000)M" }
        if n >= 1_000, n % 1_000 == 0 { return "\(n / 1_000)k" }
        return "\(n)"
    }
}
