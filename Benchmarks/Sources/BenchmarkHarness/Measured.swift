import Benchmark
import BenchSupport

/// Registers a benchmark whose every iteration is prepared by `prepare` (not measured).
public func measured(_ name: String, _ set: MetricSet, heavy: Bool, _ prepare: @escaping @Sendable () throws -> WorkloadIteration) {
    Benchmark("\(name) (\(set.rawValue))", configuration: set.configuration(heavy: heavy)) { benchmark in
        do {
            run(try prepare(), benchmark)
        } catch {
            benchmark.error("\(name): \(error)")
        }
    }
}

/// Times `iteration.run` alone; the set-up before and the clean-up after stay outside.
public func run(_ iteration: WorkloadIteration, _ benchmark: Benchmark) {
    do {
        benchmark.startMeasurement()
        blackHole(try iteration.run())
        benchmark.stopMeasurement()
        try iteration.finish()
    } catch {
        benchmark.error("\(benchmark.name): \(error)")
    }
}

/// Registers a benchmark over a store opened once in setup and closed in teardown
/// (fetch, query): every iteration runs `iteration(store)`.
public func measuredOnOpenStore(_ name: String, _ set: MetricSet, heavy: Bool,
                                open: @escaping @Sendable () throws -> any EmployeeStore,
                                _ iteration: @escaping @Sendable (any EmployeeStore) -> WorkloadIteration) {
    let holder = OpenStoreHolder()
    Benchmark("\(name) (\(set.rawValue))", configuration: set.configuration(heavy: heavy)) { benchmark in
        guard let store = holder.store else { return benchmark.error("store not open") }
        run(iteration(store), benchmark)
    } setup: {
        holder.store = try open()
    } teardown: {
        try holder.store?.close()
        holder.store = nil
    }
}
