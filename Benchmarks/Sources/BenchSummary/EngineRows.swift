import BenchSupport
import Foundation

extension Summary {
    /// The engine-level workloads: Strata's `StrataLog` used directly against SQLite.
    func runEngine() throws {
        let n = self.n, nLabel = self.nLabel, employees = self.employees
        let singles = employees.prefix(BenchScale.singleCommits)
        let strataDurable = StrataLogEngine(durability: .everyCommit)
        let strataFastest = StrataLogEngine(durability: .none)
        let sqliteFull = GRDBEngine(synchronous: .full)
        let sqliteNormal = GRDBEngine(synchronous: .normal)

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

        try runFetch()

        for scan in [false, true] {
            let row = try compare("Open \(nLabel) + count, Strata \(scan ? "index files deleted (rebuilt from segments)" : "with index files")", .milliseconds,
                                  repetitions: max(repetitions, 5),
                                  strata: { try Workloads.open(strataDurable, employees, scan: scan) },
                                  sqlite: { try Workloads.open(sqliteFull, employees) })
            try check(row, expected: n)
        }
    }

    /// Random lookups by id in an open store of all employees, engine against SQLite
    /// (`--sections fetch` runs only this: the row to profile random reads with).
    func runFetch() throws {
        let n = self.n, nLabel = self.nLabel, employees = self.employees
        let ids = EmployeeData.lookupIDs(count: BenchScale.lookups, maxID: n)
        let strataDurable = StrataLogEngine(durability: .everyCommit)
        let sqliteFull = GRDBEngine(synchronous: .full)
        progress("building fixtures of \(nLabel) employees")
        let strataStore = try Workloads.openForFetch(strataDurable, employees)
        let sqliteStore = try Workloads.openForFetch(sqliteFull, employees)
        let fetch = try compare("Fetch \(BenchScale.label(ids.count)) random ids of \(nLabel), read name + salary",
                                .throughput(operations: ids.count, unit: "lookups"), repetitions: repetitions,
                                strata: { Workloads.fetch(strataStore, ids: ids) },
                                sqlite: { Workloads.fetch(sqliteStore, ids: ids) })
        try strataStore.close()
        try sqliteStore.close()
        try check(fetch)
    }
}
