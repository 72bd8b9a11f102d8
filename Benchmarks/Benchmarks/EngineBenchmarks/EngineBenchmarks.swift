import Benchmark
import BenchmarkHarness
import BenchSupport
import Foundation

// Engine-level workloads, Strata's `StrataLog` beside SQLite through GRDB, each side
// in its best configuration. N = 10,000 employees, or 1,000,000 with STRATA_BENCH_FULL=1.
// Names read "<workload> · <engine> (<metric set>)"; BenchSummary prints the ratios.
let benchmarks: @Sendable () -> Void = {
    let n = BenchScale.employees
    let nLabel = BenchScale.label(n)
    let employees = EmployeeData.employees(count: n)
    let singles = employees.prefix(BenchScale.singleCommits)
    let ids = EmployeeData.lookupIDs(count: BenchScale.lookups, maxID: n)
    let bigN = n >= 100_000
    atexit { FixtureCache.shared.removeAll() }

    let durable: [any EmployeeEngine] = [StrataLogEngine(durability: .everyCommit), GRDBEngine(synchronous: .full)]
    let fastest: [any EmployeeEngine] = [StrataLogEngine(durability: .none), GRDBEngine(synchronous: .normal)]

    for set in MetricSet.allCases {
        // (1) N employees in one transaction.
        for engine in durable + fastest {
            measured("Insert \(nLabel) in one transaction · \(engine.name)", set, heavy: bigN) {
                try Workloads.insertOneTransaction(engine, employees)
            }
        }
        // (2) 10,000 single-object transactions; the non-durable pair for timing only.
        for engine in set == .time ? durable + fastest : durable {
            measured("Insert \(BenchScale.label(singles.count)) single transactions · \(engine.name)", set, heavy: true) {
                try Workloads.insertEachInOwnTransaction(engine, singles)
            }
        }
        // (3) 100,000 random lookups by id, reading name and salary.
        for engine in durable {
            measuredOnOpenStore("Fetch \(BenchScale.label(ids.count)) by id of \(nLabel) · \(engine.side.rawValue)", set, heavy: bigN,
                                open: { try Workloads.openForFetch(engine, employees) }) { store in
                Workloads.fetch(store, ids: ids)
            }
        }
        // (4) Open a store of N employees and count them.
        for (engine, scan) in [(durable[0], false), (durable[0], true), (durable[1], false)] {
            let how = engine.side == .sqlite ? "open + count" : scan ? "open, index files rebuilt" : "open with index files"
            measured("Open \(nLabel) · \(engine.side.rawValue) \(how)", set, heavy: false) {
                try Workloads.open(engine, employees, scan: scan)
            }
        }
    }
}
