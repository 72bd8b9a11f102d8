import BenchSupport
import Foundation

extension Summary {
    /// The tables: figures and ratios, peak memory, and the other findings.
    func print(elapsed: Duration) {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        Swift.print("Strata vs SQLite (GRDB, WAL) — \(formatter.string(from: Date())), \(ProcessInfo.processInfo.activeProcessorCount) cores, N = \(n), median of \(repetitions) (single-transaction rows and runs of a million: 1 run), \(Int(elapsed.components.seconds)) s in all")
        Swift.print("Ratio = Strata's figure / SQLite's; for rows/s, commits/s, lookups/s and queries/s higher is better, for ms and s lower is better.\n")
        Swift.print(Format.table(
            ["Workload", "Unit", "Strata", "SQLite", "Strata/SQLite", "Strata is"],
            rows.map { r in [r.workload, r.unit, Format.number(r.value(r.strata)), Format.number(r.value(r.sqlite)), Format.ratio(r.ratio), Format.speed(r.speedUp)] }))
        Swift.print("\nPeak resident memory, MiB. In-process rows: the peak during the measured part (in brackets: its rise above the resident set at its start; the process holds the workload data throughout). Rows marked * ran in a fresh child process: the whole child's peak (in brackets: the rise during the measured part).\n")
        var memoryRows = rows.map { r -> [String] in
            let ratio: String = if let a = r.strata.peakResident, let b = r.sqlite.peakResident, b > 0 { Format.ratio(Double(a) / Double(b)) } else { "–" }
            return [r.workload + (r.strata.isolated ? " *" : ""), memory(r.strata), memory(r.sqlite), ratio]
        }
        for o in orientation {
            memoryRows.append([o.workload + (o.sample.isolated ? " *" : ""), o.side == .strata ? memory(o.sample) : "–",
                               o.side == .sqlite ? memory(o.sample) : "–", "–"])
        }
        Swift.print(Format.table(["Workload", "Strata", "SQLite", "Strata/SQLite (peak)"], memoryRows))
        if !orientation.isEmpty {
            Swift.print("\nOne side only, for orientation:\n")
            Swift.print(Format.table(["Workload", "Side", "ms", "peak MiB"], orientation.map { o in
                [o.workload, o.side.rawValue, Format.number(o.sample.seconds * 1000), Format.mebibytes(o.sample.peakResident)]
            }))
        }
        if !servingRows.isEmpty {
            Swift.print("\nReads and durable saves (one every 2 ms) while the store is compacted (Strata) or vacuumed (SQLite), ms. The disk-alone rows are a control: a plain writer of the same bytes at the same pace as the compaction above them, beside a 200-byte append + fsync every 2 ms (saves) and 4 KiB cached reads:\n")
            Swift.print(servingTable())
        }
        if !findings.isEmpty {
            Swift.print("")
            for line in findings { Swift.print("- \(line)") }
        }
    }

    private func memory(_ s: Sample) -> String {
        "\(Format.mebibytes(s.peakResident)) (\(Format.mebibytes(s.residentRise)))"
    }
}
