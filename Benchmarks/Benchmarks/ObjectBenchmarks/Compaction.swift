import BenchmarkHarness
import BenchSupport

/// (8) Compaction after overwriting half the employees: Strata's `compact()`; SQLite
/// (which updates in place) `VACUUM`, for orientation.
func registerCompaction(_ scale: ObjectScale) {
    let employees = scale.employees
    for set in MetricSet.allCases {
        measured("Compact \(scale.nLabel) after overwriting half · Strata", set, heavy: scale.bigN) {
            try CompactionWorkload.strata(employees)
        }
        measured("Compact \(scale.nLabel) after overwriting half · SQLite VACUUM", set, heavy: scale.bigN) {
            try CompactionWorkload.sqlite(employees)
        }
    }
}
