import BenchSupport
import Foundation

extension Summary {
    /// The scale rows (memory and open time independent of the store's size), each
    /// beside SQLite in the same run: insert of N/10 in one transaction (its peak rise
    /// against N's, in the engine section), and in a fresh child process per side and
    /// size, open + count + 100k random reads with the resident set after them, at N/10
    /// and N. With `--ten-million`, the same engine rows at 10,000,000 employees (the
    /// photo split at 10M is `--migration-employees …,10000000`).
    func runScale() throws {
        let small = max(1_000, n / 10)
        if small < n {
            let smallEmployees = Array(employees.prefix(small))
            try compare("Insert \(BenchScale.label(small)), one transaction, durable (everyCommit vs FULL) — peak rise against N's",
                        .throughput(operations: small, unit: "rows"), repetitions: repetitions,
                        strata: { try Workloads.insertOneTransaction(StrataLogEngine(durability: .everyCommit), smallEmployees) },
                        sqlite: { try Workloads.insertOneTransaction(GRDBEngine(synchronous: .full), smallEmployees) })
            try residentAfterReads(Array(employees.prefix(small)))
            try openAfterKill(Array(employees.prefix(small)))
        }
        try residentAfterReads(employees)
        try openAfterKill(employees)
        if tenMillion { try runTenMillion() }
    }

    /// Open + count of a store whose writer was killed right after committing one
    /// transaction of all `employees` (`RecoveryTask`: a chunked commit before its
    /// seal; SQLite's WAL before its checkpoint), each side in a fresh child process on
    /// a store prepared anew for each repetition; the child's peak is the figure.
    func openAfterKill(_ employees: [Employee]) throws {
        let label = BenchScale.label(employees.count)
        var strata: [Sample] = [], sqlite: [Sample] = []
        for _ in 0..<repetitions {
            progress("preparing stores killed after one transaction of \(label)")
            for (task, samples) in [(RecoveryTask.recoverStrata, 0), (.recoverSQLite, 1)] {
                let directory = try task.prepare(employees)
                defer { directory.remove() }
                let sample = try ChildProcess.run(task.rawValue, directory: directory.path)
                if samples == 0 { strata.append(sample) } else { sqlite.append(sample) }
            }
        }
        try check(add("Open \(label) after a kill between its one transaction's commit and its seal / checkpoint + count (engine, fresh process)",
                      .milliseconds, strata: Sample.combine(strata), sqlite: Sample.combine(sqlite)), expected: employees.count)
    }

    /// Open + count + `BenchScale.lookups` random reads of a store of `employees`, each
    /// side in a fresh child process (`ReadTask`); the resident set after the reads goes
    /// into the findings.
    func residentAfterReads(_ employees: [Employee]) throws {
        let label = BenchScale.label(employees.count)
        progress("building fixtures of \(label) employees")
        let strataDirectory = try FixtureCache.shared.directory(for: ReadTask.readStrata.engine, employees: employees)
        let sqliteDirectory = try FixtureCache.shared.directory(for: ReadTask.readSQLite.engine, employees: employees)
        progress("open \(label) + \(BenchScale.label(BenchScale.lookups)) random reads, fresh processes")
        var strata: [Sample] = [], sqlite: [Sample] = []
        for _ in 0..<repetitions {
            strata.append(try ChildProcess.run(ReadTask.readStrata.rawValue, directory: strataDirectory))
            sqlite.append(try ChildProcess.run(ReadTask.readSQLite.rawValue, directory: sqliteDirectory))
        }
        let row = add("Open \(label) + count + \(BenchScale.label(BenchScale.lookups)) random reads (engine, fresh process)", .milliseconds,
                      strata: Sample.combine(strata), sqlite: Sample.combine(sqlite))
        try check(row)
        func resident(_ samples: [Sample]) -> String {
            let after = samples.compactMap { $0.notes["residentAfter"] }, before = samples.compactMap { $0.notes["residentBefore"] }
            return "\(Format.mebibytes(after.max())) MiB after (\(Format.mebibytes(before.max())) MiB before the open)"
        }
        findings.append("Resident after opening \(label) and reading \(BenchScale.label(BenchScale.lookups)) random objects (whole process): Strata \(resident(strata)), SQLite \(resident(sqlite))")
    }

    /// The engine rows at 10,000,000 employees: insert in one transaction, open + count,
    /// 100k random reads in the open store, and the resident set after a fresh open and
    /// the reads.
    func runTenMillion() throws {
        let count = 10_000_000
        let label = BenchScale.label(count)
        progress("generating \(label) employees")
        let big = EmployeeData.employees(count: count)
        let strata = StrataLogEngine(durability: .everyCommit)
        let sqlite = GRDBEngine(synchronous: .full)
        try compare("Insert \(label), one transaction, durable (everyCommit vs FULL)", .throughput(operations: count, unit: "rows"), repetitions: 1,
                    strata: { try Workloads.insertOneTransaction(strata, big) },
                    sqlite: { try Workloads.insertOneTransaction(sqlite, big) })
        progress("building fixtures of \(label) employees")
        try check(compare("Open \(label) + count, Strata with index files", .milliseconds, repetitions: max(repetitions, 5),
                          strata: { try Workloads.open(strata, big) },
                          sqlite: { try Workloads.open(sqlite, big) }), expected: count)
        let ids = EmployeeData.lookupIDs(count: BenchScale.lookups, maxID: count)
        let strataStore = try Workloads.openForFetch(strata, big)
        let sqliteStore = try Workloads.openForFetch(sqlite, big)
        let fetch = try compare("Fetch \(BenchScale.label(ids.count)) random ids of \(label), read name + salary",
                                .throughput(operations: ids.count, unit: "lookups"), repetitions: repetitions,
                                strata: { Workloads.fetch(strataStore, ids: ids) },
                                sqlite: { Workloads.fetch(sqliteStore, ids: ids) })
        try strataStore.close()
        try sqliteStore.close()
        try check(fetch)
        try residentAfterReads(big)
    }
}
