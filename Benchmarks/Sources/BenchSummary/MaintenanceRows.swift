import BenchSupport
import Foundation

extension Summary {
    /// (6) Lightweight migration against SQLite and against `cp -r`; (8) compaction.
    func runMaintenance() throws {
        let nLabel = self.nLabel, employees = self.employees
        let reps = n >= 100_000 ? 1 : repetitions
        progress("lightweight migration \(nLabel)")
        let migrations = try Sample.measureInTurns(repetitions: reps, sides: 3) { side in
            switch side {
            case 0: try LightweightMigration.strata(employees)
            case 1: try LightweightMigration.sqlite(employees, .addColumn)
            default: try LightweightMigration.sqlite(employees, .rewrite)
            }
        }
        let (strata, addColumn, rewrite) = (migrations[0], migrations[1], migrations[2])
        try check(add("Lightweight migration \(nLabel) (add attribute) vs SQLite ADD COLUMN", .milliseconds, strata: strata, sqlite: addColumn), expected: n)
        try check(add("Lightweight migration \(nLabel) (add attribute) vs SQLite table rewrite", .milliseconds, strata: strata, sqlite: rewrite), expected: n)
        let copies = try Sample.measureInTurns(repetitions: max(reps, 3), sides: 2) { side in
            try LightweightMigration.copyStore(side == 0 ? StrataObjectEngine() : GRDBEngine(synchronous: .full), employees)
        }
        let (strataCopy, sqliteCopy) = (copies[0], copies[1])
        add("cp -r of the \(nLabel) store", .milliseconds, strata: strataCopy, sqlite: sqliteCopy)
        func times(_ a: Sample, _ b: Sample) -> String { String(format: "%.1f×", a.seconds / b.seconds) }
        findings.append("Lightweight migration \(nLabel) relative to cp -r of its own store: Strata \(times(strata, strataCopy)), SQLite ADD COLUMN \(times(addColumn, sqliteCopy)), SQLite table rewrite \(times(rewrite, sqliteCopy))")

        // The other in-place changes (target: each ≤ 100 ms at 1M).
        for change in BenchModels.InPlaceChange.allCases {
            progress("in-place migration \(nLabel): \(change.rawValue)")
            let model = try BenchModels.employees(after: change)
            let pair = try Sample.measureInTurns(repetitions: reps, sides: 2) { side in
                try side == 0 ? LightweightMigration.strata(employees, model: model) : LightweightMigration.sqlite(employees, change)
            }
            let (inPlace, sqlite) = (pair[0], pair[1])
            try check(add("Lightweight migration \(nLabel) (\(change.rawValue))", .milliseconds, strata: inPlace, sqlite: sqlite), expected: n)
            if change == .unique {
                // The check sorts n terms within a quarter of the 64 MiB budget (runs
                // spilled beyond it): the rise must not follow n.
                findings.append("Unique rule added in place \(nLabel): resident rise Strata \(Format.mebibytes(inPlace.residentRise)) MiB, SQLite CREATE UNIQUE INDEX \(Format.mebibytes(sqlite.residentRise)) MiB")
            }
        }

        // Reading records of an older layout (target: ≤ 1.2× reading current ones).
        progress("older-layout reads \(nLabel)")
        let ids = EmployeeData.lookupIDs(count: 100_000, maxID: n)
        let mixed = try OlderLayoutReads.mixed(employees)
        let current = try OlderLayoutReads.current(employees)
        let reads = try Sample.measureInTurns(repetitions: repetitions, sides: 2) { $0 == 0 ? mixed.fetch(ids: ids) : current.fetch(ids: ids) }
        let (half, all) = (reads[0], reads[1])
        mixed.close()
        current.close()
        guard half.result == all.result else { throw BenchError("older-layout reads: checksums differ (\(half.result) vs \(all.result))") }
        findings.append(String(format: "Older-layout reads %@: 100k random lookups by id (name, salary, bonus) with half the records of the layout before an in-place migration %.1f ms, all records current %.1f ms: %.2f× (target ≤ 1.2×)",
                               nLabel, half.seconds * 1000, all.seconds * 1000, half.seconds / all.seconds))

        progress("compaction \(nLabel)")
        let compaction = try compare("Compact \(nLabel) after overwriting half (Strata compact vs SQLite VACUUM)", .milliseconds, repetitions: reps,
                                     strata: { try CompactionWorkload.strata(employees) },
                                     sqlite: { try CompactionWorkload.sqlite(employees) })
        let s = compaction.strata.notes
        findings.append("Compaction \(nLabel): Strata rewrote \(s["recordsRewritten"] ?? 0) records, segments \(Format.mebibytes(s["segmentBytesBefore"])) → \(Format.mebibytes(s["segmentBytesAfter"])) MiB; SQLite VACUUM \(compaction.sqlite.mebibytes("bytesBefore")) → \(compaction.sqlite.mebibytes("bytesAfter")) MiB")
        guard (s["recordsRewritten"] ?? 0) > 0 else { throw BenchError("compaction rewrote nothing") }
    }
}
