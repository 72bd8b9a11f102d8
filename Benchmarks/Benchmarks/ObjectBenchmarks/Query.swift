import BenchmarkHarness
import BenchSupport

/// (3) Queries, sorted and limited to 20: 100 on the indexed department reference,
/// 10 on the non-indexed salary (each judges every employee).
func registerQuery(_ scale: ObjectScale) {
    // The typed twin (`#Predicate` through `FetchDescriptor`) beside the untyped request.
    let engines: [any EmployeeEngine] = [StrataObjectEngine(), StrataTypedEngine(), GRDBEngine(synchronous: .full)]
    let employees = scale.employees
    let kinds = [("indexed departmentID ==", EmployeeQuery.byDepartment(count: EmployeeQuery.indexedQueries)),
                 ("non-indexed salary range", EmployeeQuery.bySalary(count: EmployeeQuery.scanQueries))]
    for set in MetricSet.allCases {
        for (label, queries) in kinds {
            for engine in engines {
                measuredOnOpenStore("Query \(queries.count)× \(label) of \(scale.nLabel) · \(engine is StrataTypedEngine ? "strata typed" : engine.side.rawValue)", set, heavy: scale.bigN,
                                    open: { try Workloads.openForFetch(engine, employees) }) { store in
                    Workloads.query(store, queries)
                }
            }
        }
    }
}
