import BenchmarkHarness
import BenchSupport

/// (6) Lightweight migration (an attribute added) of N employees, and `cp -r` of the
/// same stores as the yardstick.
func registerLightweightMigration(_ scale: ObjectScale) {
    let employees = scale.employees
    let label = "Lightweight migration \(scale.nLabel)"
    for set in [MetricSet.time, .memory] {
        measured("\(label) · Strata inferred", set, heavy: scale.bigN) {
            try LightweightMigration.strata(employees)
        }
        for way in [LightweightMigration.SQLiteWay.addColumn, .rewrite] {
            measured("\(label) · SQLite \(way.rawValue)", set, heavy: scale.bigN) {
                try LightweightMigration.sqlite(employees, way)
            }
        }
    }
    for engine in [StrataObjectEngine() as any EmployeeEngine, GRDBEngine(synchronous: .full)] {
        measured("cp -r of the \(scale.nLabel) store · \(engine.side.rawValue)", .time, heavy: scale.bigN) {
            try LightweightMigration.copyStore(engine, employees)
        }
    }
}
