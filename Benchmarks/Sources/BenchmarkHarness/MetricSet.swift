import Benchmark

/// The three kinds of benchmark every workload is registered as. They are kept apart
/// because sampling peak memory adds harness mallocs to every iteration (TOOLCHAIN.md).
public enum MetricSet: String, CaseIterable, Sendable {
    case time
    case memory
    case mallocs

    public var metrics: [BenchmarkMetric] {
        switch self {
        case .time: [.wallClock, .throughput]
        case .memory: [.peakMemoryResident, .peakMemoryResidentDelta]
        case .mallocs: [.mallocCountTotal]
        }
    }

    /// Explicit, loose thresholds: a shared 2-core machine is noisy, and an unset metric
    /// would default to 5%. Malloc counts are nearly deterministic.
    public var thresholds: [BenchmarkMetric: BenchmarkThresholds] {
        switch self {
        case .time:
            [.wallClock: BenchmarkThresholds(relative: [.p50: 50.0]),
             .throughput: BenchmarkThresholds(relative: [.p50: 50.0])]
        case .memory:
            [.peakMemoryResident: BenchmarkThresholds(relative: [.p50: 25.0]),
             .peakMemoryResidentDelta: BenchmarkThresholds(relative: [.p50: 50.0])]
        case .mallocs:
            [.mallocCountTotal: BenchmarkThresholds(relative: [.p50: 10.0])]
        }
    }

    /// `heavy` workloads (seconds per iteration: 10,000 fsyncs, a million objects, a
    /// migration) run once, without warm-up.
    public func configuration(heavy: Bool) -> Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: metrics,
            warmupIterations: heavy ? 0 : 1,
            maxDuration: .seconds(heavy ? 1 : 5),
            maxIterations: heavy ? 1 : (self == .time ? 10 : 3),
            thresholds: thresholds)
    }
}
