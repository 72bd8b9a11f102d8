import Benchmark
import BenchmarkHarness
import BenchSupport
import Foundation

// Object-layer workloads: Strata's contexts, fetch requests, migrations and compaction
// beside SQLite through GRDB. N = 10,000 employees (1,000,000 with STRATA_BENCH_FULL=1);
// the photo scenario and the migrations have scales of their own (BenchScale). Names
// read "<workload> · <engine> (<metric set>)"; BenchSummary prints the ratios. The
// SQLite side of insert and fetch by id is EngineBenchmarks' (the same SQL).
let benchmarks: @Sendable () -> Void = {
    let scale = ObjectScale()
    atexit { FixtureCache.shared.removeAll() }
    registerInsert(scale)
    registerFetch(scale)
    registerQuery(scale)
    registerOpen(scale)
    registerPhotoList(scale)
    registerPhotoMigration(scale)
    registerLightweightMigration(scale)
    registerCompaction(scale)
}

/// The data every registration shares.
struct ObjectScale: Sendable {
    let n = BenchScale.employees
    var nLabel: String { BenchScale.label(n) }
    let employees: [Employee]
    /// Runs of a million objects take seconds: once each, no warm-up.
    var bigN: Bool { n >= 100_000 }

    init() {
        employees = EmployeeData.employees(count: n)
    }
}
