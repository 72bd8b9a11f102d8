import BenchmarkHarness
import BenchSupport

/// (4) The photo list (scenario 1): every employee's name from a store of employees
/// with 64 KiB photos. Strata fetches faults (no photo bytes); SQLite runs a cursor over
/// id and name of the table holding the photo column; SQLite's `fetchAll` with the
/// photos for orientation (memory only).
func registerPhotoList(_ scale: ObjectScale) {
    let scenario = PhotoScenario(employees: BenchScale.photoEmployees, photoKiB: 64)
    for set in MetricSet.allCases {
        for task in [PhotoTask.listStrata, .listSQLite] {
            measured("Photo list \(scenario) names · \(task.side.rawValue)", set, heavy: false) {
                try task.workload(scenario)
            }
        }
    }
    measured("Photo list \(scenario) fetchAll with photos · SQLite", .memory, heavy: true) {
        try PhotoTask.fetchAllSQLite.workload(scenario)
    }
}
