import BenchSupport
import Foundation

extension Summary {
    /// (6) Lightweight migration against SQLite and against `cp -r`; (8) compaction.
    func runMaintenance() throws {
        let nLabel = self.nLabel, employees = self.employees
        let reps = n >= 100_000 ? 1 : repetitions
        progress("lightweight migration \(nLabel)")
        let strata = try Sample.measure(repetitions: reps) { try LightweightMigration.strata(employees) }
        let addColumn = try Sample.measure(repetitions: reps) { try LightweightMigration.sqlite(employees, .addColumn) }
        let rewrite = try Sample.measure(repetitions: reps) { try LightweightMigration.sqlite(employees, .rewrite) }
        try check(add("Lightweight migration \(nLabel) (add attribute) vs SQLite ADD COLUMN", .milliseconds, strata: strata, sqlite: addColumn), expected: n)
        try check(add("Lightweight migration \(nLabel) (add attribute) vs SQLite table rewrite", .milliseconds, strata: strata, sqlite: rewrite), expected: n)
        let strataCopy = try Sample.measure(repetitions: max(reps, 3)) { try LightweightMigration.copyStore(StrataObjectEngine(), employees) }
        let sqliteCopy = try Sample.measure(repetitions: max(reps, 3)) { try LightweightMigration.copyStore(GRDBEngine(synchronous: .full), employees) }
        add("cp -r of the \(nLabel) store", .milliseconds, strata: strataCopy, sqlite: sqliteCopy)
        func times(_ a: Sample, _ b: Sample) -> String { String(format: "%.1f×", a.seconds / b.seconds) }
        findings.append("Lightweight migration \(nLabel) relative to cp -r of its own store: Strata \(times(strata, strataCopy)), SQLite ADD COLUMN \(times(addColumn, sqliteCopy)), SQLite table rewrite \(times(rewrite, sqliteCopy))")

        progress("compaction \(nLabel)")
        let compaction = try compare("Compact \(nLabel) after overwriting half (Strata compact vs SQLite VACUUM)", .milliseconds, repetitions: reps,
                                     strata: { try CompactionWorkload.strata(employees) },
                                     sqlite: { try CompactionWorkload.sqlite(employees) })
        let s = compaction.strata.notes
        findings.append("Compaction \(nLabel): Strata rewrote \(s["recordsRewritten"] ?? 0) records, segments \(Format.mebibytes(s["segmentBytesBefore"])) → \(Format.mebibytes(s["segmentBytesAfter"])) MiB; SQLite VACUUM \(compaction.sqlite.mebibytes("bytesBefore")) → \(compaction.sqlite.mebibytes("bytesAfter")) MiB")
        guard (s["recordsRewritten"] ?? 0) > 0 else { throw BenchError("compaction rewrote nothing") }
    }
}
