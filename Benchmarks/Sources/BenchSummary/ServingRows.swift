import BenchSupport
import Foundation

extension Summary {
    /// Compaction while serving: the reads' and durable saves' latencies before and
    /// during Strata's compaction and SQLite's VACUUM, each side in the same run.
    func runServing() throws {
        for n in servingEmployees {
            let label = BenchScale.label(n)
            let employees = n == self.n ? self.employees : EmployeeData.employees(count: n)
            progress("compaction while serving \(label): Strata")
            let strata = try CompactionWhileServing.strata(employees)
            let cap = CompactionWhileServing.servicePolicyBytesPerSecond
            progress("compaction while serving \(label): Strata at \(cap >> 20) MiB/s")
            let policy = try CompactionWhileServing.strata(employees, bytesPerSecond: cap)
            progress("compaction while serving \(label): SQLite VACUUM")
            let sqlite = try CompactionWhileServing.sqlite(employees)
            progress("compaction while serving \(label): the disk alone")
            let disk = try CompactionWhileServing.disk(bytes: strata.bytesAfter, over: strata.maintenance)
            let diskAtPolicy = try CompactionWhileServing.disk(bytes: policy.bytesAfter, over: policy.maintenance)
            servingRows.append((label, "Strata compact", strata))
            servingRows.append((label, "Strata compact, \(cap >> 20) MiB/s", policy))
            servingRows.append((label, "SQLite VACUUM", sqlite))
            servingRows.append((label, "disk alone, as compact", disk))
            servingRows.append((label, "disk alone, as \(cap >> 20) MiB/s", diskAtPolicy))
            func ratio(_ during: Duration, _ idle: Duration) -> String { idle > .zero ? String(format: "%.1f×", during / idle) : "–" }
            func strataFinding(_ o: CompactionWhileServing.Outcome) -> String {
                "compacted in \(Self.milliseconds(o.maintenance)) ms (longest swap \(o.longestPause.map(Self.fine) ?? "–") ms; segments \(Format.mebibytes(o.bytesBefore)) → \(Format.mebibytes(o.bytesAfter)) MiB), save p99 \(ratio(o.during.saves.p99, o.idle.saves.p99)) idle, read p99 \(ratio(o.during.reads.p99, o.idle.reads.p99)) idle"
            }
            findings.append("Compaction while serving \(label): Strata \(strataFinding(strata)); at \(cap >> 20) MiB/s (a StoreService's default policy) \(strataFinding(policy)); SQLite VACUUM \(Self.milliseconds(sqlite.maintenance)) ms (\(Format.mebibytes(sqlite.bytesBefore)) → \(Format.mebibytes(sqlite.bytesAfter)) MiB), save p99 \(ratio(sqlite.during.saves.p99, sqlite.idle.saves.p99)) idle, read p99 \(ratio(sqlite.during.reads.p99, sqlite.idle.reads.p99)) idle; the disk alone (a plain writer of the compaction's output bytes over its time, an fsync probe beside it) raised the probe's p99 \(ratio(disk.during.saves.p99, disk.idle.saves.p99)) as compact, \(ratio(diskAtPolicy.during.saves.p99, diskAtPolicy.idle.saves.p99)) as the policy")
        }
    }

    static func milliseconds(_ d: Duration) -> String { Format.number(d / .milliseconds(1)) }
    static func fine(_ d: Duration) -> String { String(format: "%.3f", d / .milliseconds(1)) }

    /// The table of `servingRows`: one line per side and phase.
    func servingTable() -> String {
        var lines: [[String]] = []
        for (label, side, o) in servingRows {
            for (phase, p) in [("idle", o.idle), ("during (\(Self.milliseconds(o.maintenance)) ms)", o.during)] {
                lines.append(["\(label) \(side)", phase, "\(p.reads.count)", Self.fine(p.reads.p50), Self.fine(p.reads.p99), Self.fine(p.reads.max),
                              "\(p.saves.count)", Self.fine(p.saves.p50), Self.fine(p.saves.p99), Self.fine(p.saves.max)])
            }
        }
        return Format.table(["Store, maintenance", "Phase", "reads", "read p50 ms", "p99", "max", "saves", "save p50 ms", "p99", "max"], lines)
    }
}
