import BenchmarkHarness
import BenchSupport

/// (5) The photo split of scenario 1 (photo → Photo entity, custom policy; SQLite: new
/// table, INSERT … SELECT, DROP COLUMN through GRDB's migrator, with and without its
/// foreign-key check): (a) 1 KiB photos inline in the records, (b) 64 KiB photos in
/// the blob area. Time and peak memory; each iteration migrates a fresh copy.
func registerPhotoMigration(_ scale: ObjectScale) {
    var scenarios = BenchScale.inlineMigrationEmployees.map { PhotoScenario(employees: $0, photoKiB: 1) }
    scenarios.append(PhotoScenario(employees: BenchScale.blobMigrationEmployees(packageBenchmark: true), photoKiB: 64))
    for set in [MetricSet.time, .memory] {
        for scenario in scenarios {
            for task in [PhotoTask.migrateStrata, .migrateSQLite, .migrateSQLiteUnchecked] {
                measured("Photo split migration \(scenario) · \(task.rawValue)", set, heavy: true) {
                    try task.workload(scenario)
                }
            }
        }
    }
}
