import BenchmarkHarness
import BenchSupport

/// (7) Opening an `ObjectStore` of N employees (index files present) and counting them. The
/// engine-level open and SQLite's are EngineBenchmarks'.
func registerOpen(_ scale: ObjectScale) {
    let engine = StrataObjectEngine()
    let employees = scale.employees
    for set in MetricSet.allCases {
        measured("Open \(scale.nLabel) · \(engine.side.rawValue) ObjectStore open + count", set, heavy: false) {
            try Workloads.open(engine, employees)
        }
    }
}
