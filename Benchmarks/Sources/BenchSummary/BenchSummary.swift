import BenchSupport
import Foundation

// BenchSummary: both sides of every workload in one process, printed as a Markdown
// table of figures and Strata/SQLite ratios (package-benchmark prints each benchmark
// on its own). `swift run -c release BenchSummary [--employees N] [--repetitions R]
// [--skip-singles]`; STRATA_BENCH_FULL=1 sets N to 1,000,000.
@main
struct BenchSummary {
    static func main() {
        var n = BenchScale.employees
        var repetitions = 3
        var skipSingles = false
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--employees": n = arguments.next().flatMap(Int.init) ?? n
            case "--repetitions": repetitions = arguments.next().flatMap(Int.init) ?? repetitions
            case "--skip-singles": skipSingles = true
            default:
                FileHandle.standardError.write(Data("usage: BenchSummary [--employees N] [--repetitions R] [--skip-singles]\n".utf8))
                exit(2)
            }
        }
        defer { FixtureCache.shared.removeAll() }

        func progress(_ text: String) {
            FileHandle.standardError.write(Data("· \(text)\n".utf8))
        }

        let employees = EmployeeData.employees(count: n)
        let singles = employees.prefix(BenchScale.singleCommits)
        let ids = EmployeeData.lookupIDs(count: BenchScale.lookups, maxID: n)
        let nLabel = BenchScale.label(n)
        let strataDurable = StrataLogEngine(durability: .everyCommit)
        let strataFastest = StrataLogEngine(durability: .none)
        let sqliteFull = GRDBEngine(synchronous: .full)
        let sqliteNormal = GRDBEngine(synchronous: .normal)
        var rows: [SummaryRow] = []

        /// Measures both sides of one workload, Strata first, and keeps the row.
        func compare(_ workload: String, _ figure: SummaryRow.Figure, repetitions: Int,
                     strata: () throws -> WorkloadIteration, sqlite: () throws -> WorkloadIteration) throws {
            progress(workload)
            let s = try Sample.measure(repetitions: repetitions, strata)
            let q = try Sample.measure(repetitions: repetitions, sqlite)
            rows.append(SummaryRow(workload: workload, figure: figure, strata: s, sqlite: q))
        }

        do {
            let insert = SummaryRow.Figure.throughput(operations: n, unit: "rows")
            try compare("Insert \(nLabel), one transaction, durable (everyCommit vs FULL)", insert, repetitions: repetitions,
                        strata: { try Workloads.insertOneTransaction(strataDurable, employees) },
                        sqlite: { try Workloads.insertOneTransaction(sqliteFull, employees) })
            try compare("Insert \(nLabel), one transaction, fastest (none vs NORMAL)", insert, repetitions: repetitions,
                        strata: { try Workloads.insertOneTransaction(strataFastest, employees) },
                        sqlite: { try Workloads.insertOneTransaction(sqliteNormal, employees) })
            try compare("Insert \(nLabel), one transaction, Strata none vs SQLite FULL", insert, repetitions: repetitions,
                        strata: { try Workloads.insertOneTransaction(strataFastest, employees) },
                        sqlite: { try Workloads.insertOneTransaction(sqliteFull, employees) })
            if !skipSingles {
                let commits = SummaryRow.Figure.throughput(operations: singles.count, unit: "commits")
                try compare("\(BenchScale.label(singles.count)) single-object transactions, durable (everyCommit vs FULL)", commits, repetitions: 1,
                            strata: { try Workloads.insertEachInOwnTransaction(strataDurable, singles) },
                            sqlite: { try Workloads.insertEachInOwnTransaction(sqliteFull, singles) })
                try compare("\(BenchScale.label(singles.count)) single-object transactions, no fsync (none vs NORMAL)", commits, repetitions: 1,
                            strata: { try Workloads.insertEachInOwnTransaction(strataFastest, singles) },
                            sqlite: { try Workloads.insertEachInOwnTransaction(sqliteNormal, singles) })
            }

            progress("building fixtures of \(nLabel) employees")
            let strataStore = try Workloads.openForFetch(strataDurable, employees)
            let sqliteStore = try Workloads.openForFetch(sqliteFull, employees)
            try compare("Fetch \(BenchScale.label(ids.count)) random ids of \(nLabel), read name + salary",
                        .throughput(operations: ids.count, unit: "lookups"), repetitions: repetitions,
                        strata: { Workloads.fetch(strataStore, ids: ids) },
                        sqlite: { Workloads.fetch(sqliteStore, ids: ids) })
            try strataStore.close()
            try sqliteStore.close()
            if let fetch = rows.last, fetch.strata.result != fetch.sqlite.result {
                throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "fetch checksums differ: Strata \(fetch.strata.result), SQLite \(fetch.sqlite.result)"])
            }

            try compare("Open \(nLabel) + count, Strata with hints", .milliseconds, repetitions: max(repetitions, 5),
                        strata: { try Workloads.open(strataDurable, employees) },
                        sqlite: { try Workloads.open(sqliteFull, employees) })
            try compare("Open \(nLabel) + count, Strata scanning (no hints)", .milliseconds, repetitions: max(repetitions, 5),
                        strata: { try Workloads.open(strataDurable, employees, scan: true) },
                        sqlite: { try Workloads.open(sqliteFull, employees) })
            for row in rows.suffix(2) where row.strata.result != n || row.sqlite.result != n {
                throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "open counted Strata \(row.strata.result), SQLite \(row.sqlite.result), expected \(n)"])
            }
        } catch {
            FileHandle.standardError.write(Data("BenchSummary failed: \(error)\n".utf8))
            FixtureCache.shared.removeAll()
            exit(1)
        }

        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        print("Strata vs SQLite (GRDB, WAL) — \(formatter.string(from: Date())), \(ProcessInfo.processInfo.activeProcessorCount) cores, N = \(n), median of \(repetitions) (single-transaction rows: 1 run)")
        print("Ratio = Strata's figure / SQLite's; for rows/s, commits/s and lookups/s higher is better, for ms lower is better.\n")
        print(Format.table(
            ["Workload", "Unit", "Strata", "SQLite", "Strata/SQLite", "Strata is"],
            rows.map { r in [r.workload, r.unit, Format.number(r.value(r.strata)), Format.number(r.value(r.sqlite)), Format.ratio(r.ratio), Format.speed(r.speedUp)] }))
        print("\nPeak resident memory during the measured part (MiB; in brackets: rise above the resident set at its start; the process holds the workload data throughout)\n")
        print(Format.table(
            ["Workload", "Strata", "SQLite", "Strata/SQLite (rise)"],
            rows.map { r in
                let ratio: String = if let a = r.strata.residentRise, let b = r.sqlite.residentRise, b > 0 { Format.ratio(Double(a) / Double(b)) } else { "–" }
                return [r.workload, "\(Format.mebibytes(r.strata.peakResident)) (\(Format.mebibytes(r.strata.residentRise)))",
                        "\(Format.mebibytes(r.sqlite.peakResident)) (\(Format.mebibytes(r.sqlite.residentRise)))", ratio]
            }))
    }
}
