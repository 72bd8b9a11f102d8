import BenchmarkHarness
import BenchSupport

/// (2) 100,000 random lookups by id through faults (`context.object(with:)`), reading
/// name and salary; and the same through typed models (`context.model(for:)`).
func registerFetch(_ scale: ObjectScale) {
    let engines: [any EmployeeEngine] = [StrataObjectEngine(), StrataTypedEngine()]
    let employees = scale.employees
    let ids = EmployeeData.lookupIDs(count: BenchScale.lookups, maxID: scale.n)
    for set in MetricSet.allCases {
        for engine in engines {
            measuredOnOpenStore("Fetch \(BenchScale.label(ids.count)) by id of \(scale.nLabel) · \(engine.name)", set, heavy: scale.bigN,
                                open: { try Workloads.openForFetch(engine, employees) }) { store in
                Workloads.fetch(store, ids: ids)
            }
        }
    }
}
