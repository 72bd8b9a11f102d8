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

        // Reading records of an older layout (target: ≤ 1.2× reading current ones). The
        // stores compared have the same history (every other employee rewritten, then
        // compacted) so that only the layouts differ; the same store after a compaction
        // pass, and a store written once, are shown beside them.
        progress("older-layout reads \(nLabel)")
        let ids = EmployeeData.lookupIDs(count: 100_000, maxID: n)
        let layoutStores = [
            try OlderLayoutReads.mixed(employees), try OlderLayoutReads.current(employees),
            try OlderLayoutReads.mixed(employees, settling: .compactionPass), try OlderLayoutReads.current(employees, rewritingEveryOther: false),
        ]
        let reads = try Sample.measureInTurns(repetitions: repetitions, sides: layoutStores.count) { layoutStores[$0].fetch(ids: ids) }
        for store in layoutStores { store.close() }
        let (half, all, passed, once) = (reads[0], reads[1], reads[2], reads[3])
        guard Set(reads.map(\.result)).count == 1 else { throw BenchError("older-layout reads: checksums differ (\(reads.map(\.result)))") }
        findings.append(String(format: "Older-layout reads %@: 100k random lookups by id (name, salary, bonus), every other employee rewritten and the store compacted, with half the records of the layout before an in-place migration %.1f ms, all records current %.1f ms: %.2f× (target ≤ 1.2×); after a compaction pass (older layouts rewritten and dropped) %.1f ms: %.2f×; a store written once, never rewritten, %.1f ms",
                               nLabel, half.seconds * 1000, all.seconds * 1000, half.seconds / all.seconds,
                               passed.seconds * 1000, passed.seconds / all.seconds, once.seconds * 1000))

        progress("compaction \(nLabel)")
        let compaction = try compare("Compact \(nLabel) after overwriting half (Strata compact vs SQLite VACUUM)", .milliseconds, repetitions: reps,
                                     strata: { try CompactionWorkload.strata(employees) },
                                     sqlite: { try CompactionWorkload.sqlite(employees) })
        let s = compaction.strata.notes
        findings.append("Compaction \(nLabel): Strata rewrote \(s["recordsRewritten"] ?? 0) records, segments \(Format.mebibytes(s["segmentBytesBefore"])) → \(Format.mebibytes(s["segmentBytesAfter"])) MiB; SQLite VACUUM \(compaction.sqlite.mebibytes("bytesBefore")) → \(compaction.sqlite.mebibytes("bytesAfter")) MiB")
        guard (s["recordsRewritten"] ?? 0) > 0 else { throw BenchError("compaction rewrote nothing") }
    }
}
