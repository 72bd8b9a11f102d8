import BenchSupport
import Foundation

/// The options of one BenchSummary run and the rows it measured.
final class Summary {
    /// What to run (`--sections`): all by default.
    enum Section: String, CaseIterable {
        case engine, fetch, objects, typed, photos, migration, maintenance, serving, history, scale, cli, postgres
    }

    var n = BenchScale.employees
    var repetitions = 3
    var skipSingles = false
    /// `--ten-million`: the scale section adds its engine rows at 10,000,000 employees.
    var tenMillion = false
    /// Every section but `postgres`, which needs a server (`--postgres`).
    var sections = Set(Section.allCases).subtracting([.postgres])
    /// The PostgreSQL server of the `postgres` section, a location without a schema.
    var postgres: String?
    var photoEmployees = 20_000
    var inlineMigrationEmployees = BenchScale.inlineMigrationEmployees
    var blobMigrationEmployees = BenchScale.blobMigrationEmployees(packageBenchmark: false)
    /// `--migration-strata-only`: the photo-split rows run Strata's side alone (the 10M
    /// run: SQLite's side needs disk for a copy of its database and for the peak of
    /// its migration, several times the database's size).
    var migrationStrataOnly = false
    /// Lines of the command-line rows: N, and 100k beside 1M under STRATA_BENCH_FULL.
    var commandLineEmployees = BenchScale.isFull ? [100_000, 1_000_000] : [BenchScale.employees]

    /// Sizes of the compaction-while-serving rows: N, and 100k beside 1M under STRATA_BENCH_FULL.
    var servingEmployees = BenchScale.isFull ? [100_000, 1_000_000] : [BenchScale.employees]

    /// Strata beside SQLite.
    var rows: [SummaryRow] = []
    /// Latencies of reads and saves while maintenance runs (`runServing`).
    var servingRows: [(label: String, side: String, outcome: CompactionWhileServing.Outcome)] = []
    /// One side only, for orientation (SQLite `fetchAll` with photos).
    var orientation: [(workload: String, side: EngineSide, sample: Sample)] = []
    /// Lines of figures besides time and memory (blob bytes read, disk, cp ratios).
    var findings: [String] = []

    lazy var employees = EmployeeData.employees(count: n)
    var nLabel: String { BenchScale.label(n) }

    func progress(_ text: String) {
        FileHandle.standardError.write(Data("· \(text)\n".utf8))
    }

    /// Measures both sides of one workload, Strata first, and keeps the row.
    @discardableResult
    func compare(_ workload: String, _ figure: SummaryRow.Figure, repetitions: Int,
                 strata: () throws -> WorkloadIteration, sqlite: () throws -> WorkloadIteration) throws -> SummaryRow {
        progress(workload)
        let samples = try Sample.measureInTurns(repetitions: repetitions, sides: 2) { try $0 == 0 ? strata() : sqlite() }
        let row = SummaryRow(workload: workload, figure: figure, strata: samples[0], sqlite: samples[1])
        rows.append(row)
        return row
    }

    /// Keeps a row of two samples measured elsewhere (child processes, a shared side).
    @discardableResult
    func add(_ workload: String, _ figure: SummaryRow.Figure, strata: Sample, sqlite: Sample) -> SummaryRow {
        let row = SummaryRow(workload: workload, figure: figure, strata: strata, sqlite: sqlite)
        rows.append(row)
        return row
    }

    /// Throws unless both sides returned the same value (a count or checksum).
    func check(_ row: SummaryRow, expected: Int? = nil) throws {
        guard row.strata.result == row.sqlite.result, expected.map({ $0 == row.strata.result }) ?? true else {
            throw BenchError("\(row.workload): Strata returned \(row.strata.result), SQLite \(row.sqlite.result)\(expected.map { ", expected \($0)" } ?? "")")
        }
    }
}

extension Sample {
    /// A noted figure in MiB, "–" when absent.
    func mebibytes(_ note: String) -> String { Format.mebibytes(notes[note]) }
}
