import BenchmarkHarness
import BenchSupport

/// (1) N employees through the object layer in one transaction: a context and one
/// `save()` (durable and fastest), and `store.batchInsert`; the durable 10,000 single
/// saves for time only (10,000 fsyncs take tens of seconds). The typed twins
/// (`StrataTypedEngine`: `@Model` and `ModelContext`) insert the same employees.
func registerInsert(_ scale: ObjectScale) {
    let engines: [any EmployeeEngine] = [
        StrataObjectEngine(durability: .everyCommit, writer: .context),
        StrataObjectEngine(durability: .none, writer: .context),
        StrataObjectEngine(durability: .everyCommit, writer: .batchInsert),
        // Typed models (issue 17), beside the untyped context of the same durability.
        StrataTypedEngine(durability: .everyCommit),
        StrataTypedEngine(durability: .none),
    ]
    let employees = scale.employees
    let singles = employees.prefix(BenchScale.singleCommits)
    for set in MetricSet.allCases {
        for engine in engines {
            measured("Insert \(scale.nLabel) in one transaction · \(engine.name)", set, heavy: scale.bigN) {
                try Workloads.insertOneTransaction(engine, employees)
            }
        }
    }
    let durable = engines[0]
    measured("Insert \(BenchScale.label(singles.count)) single transactions · \(durable.name)", .time, heavy: true) {
        try Workloads.insertEachInOwnTransaction(durable, singles)
    }
}
