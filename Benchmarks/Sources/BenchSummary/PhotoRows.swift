import BenchSupport
import Foundation

extension Summary {
    /// (4) The photo list, each side in a fresh child process.
    func runPhotoList() throws {
        let scenario = PhotoScenario(employees: photoEmployees, photoKiB: 64)
        progress("building photo stores, \(scenario)")
        _ = try PhotoTask.fixture(.strata, scenario)
        _ = try PhotoTask.fixture(.sqlite, scenario)
        progress("photo list \(scenario)")
        let lists = try ChildProcess.measureInTurns([.listStrata, .listSQLite], scenario, repetitions: repetitions)
        let (strata, sqlite) = (lists[0], lists[1])
        let row = add("Photo list \(scenario): all names (Strata fetch vs SQLite cursor over id, name)", .milliseconds, strata: strata, sqlite: sqlite)
        try check(row)
        findings.append("Photo list \(scenario): Strata read \(strata.notes["blobBytesRead"] ?? -1) blob bytes and \(strata.mebibytes("segmentBytesRead")) MiB of records")
        progress("photo list \(scenario): SQLite fetchAll with photos")
        let all = try ChildProcess.measure(.fetchAllSQLite, scenario, repetitions: 1)
        orientation.append(("Photo list \(scenario): SQLite Row.fetchAll with photos", .sqlite, all))
        findings.append("SQLite fetchAll with photos loaded \(all.mebibytes("photoBytes")) MiB of photos")
    }

    /// (5) The photo split: (a) 1 KiB photos inline at each scale, (b) 64 KiB photos in
    /// the blob area; each run in a fresh child process on a fresh copy.
    func runPhotoMigration() throws {
        var scenarios = inlineMigrationEmployees.map { PhotoScenario(employees: $0, photoKiB: 1) }
        if blobMigrationEmployees > 0 { scenarios.append(PhotoScenario(employees: blobMigrationEmployees, photoKiB: 64)) }
        for scenario in scenarios {
            let where_ = scenario.photoBytes < 8 << 10 ? "inline" : "blob area"
            progress("building photo stores, \(scenario)")
            _ = try PhotoTask.fixture(.strata, scenario)
            if migrationStrataOnly {
                progress("photo split migration \(scenario), Strata only")
                let strata = try ChildProcess.measure(.migrateStrata, scenario, repetitions: 1)
                orientation.append(("Photo split \(scenario) (\(where_)), Strata only", .strata, strata))
                findings.append("Photo split \(scenario), Strata alone: \(Format.number(strata.seconds)) s, peak \(Format.mebibytes(strata.peakResident)) MiB (rise \(Format.mebibytes(strata.residentRise)) MiB), \(strata.result) photos; disk \(Format.mebibytes(strata.notes["diskBefore"] ?? 0)) MiB before, peak \(Format.mebibytes(strata.notes["diskPeak"] ?? 0)) MiB")
                continue
            }
            _ = try PhotoTask.fixture(.sqlite, scenario)
            let big = scenario.employees * max(1, scenario.photoBytes / 1024) >= 10_000_000
            let reps = big ? 1 : repetitions
            progress("photo split migration \(scenario) (\(reps)×)")
            let migrations = try ChildProcess.measureInTurns([.migrateStrata, .migrateSQLite, .migrateSQLiteUnchecked], scenario, repetitions: reps)
            let (strata, checked, unchecked) = (migrations[0], migrations[1], migrations[2])
            try check(add("Photo split \(scenario) (\(where_)) vs GRDB migrator with FK check", .seconds, strata: strata, sqlite: checked),
                      expected: scenario.employees)
            try check(add("Photo split \(scenario) (\(where_)) vs GRDB migrator without FK check", .seconds, strata: strata, sqlite: unchecked),
                      expected: scenario.employees)
            for (name, sample) in [("Strata", strata), ("SQLite", checked), ("SQLite no FK check", unchecked)] {
                let before = sample.notes["diskBefore"] ?? 0, peak = sample.notes["diskPeak"] ?? 0
                let records = sample.notes["recordBytes"] ?? 0
                let ratio = records > 0 ? String(format: "%.2f", Double(peak - before) / Double(records)) : "–"
                findings.append("Photo split \(scenario), \(name): disk \(Format.mebibytes(before)) MiB before, peak \(Format.mebibytes(peak)) MiB (+\(Format.mebibytes(peak - before)) MiB = \(ratio)× the \(Format.mebibytes(records)) MiB of \(name.hasPrefix("Strata") ? "segments (records)" : "database file"))")
            }
        }
    }
}
