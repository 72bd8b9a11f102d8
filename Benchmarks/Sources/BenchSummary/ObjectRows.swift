import BenchSupport
import Foundation

extension Summary {
    /// Threads writing at once in the concurrent durable-saves row.
    static let concurrentWriters = 8

    /// The object layer (contexts, `batchInsert`, faults, fetch requests, ObjectStore
    /// open) against the same SQLite work.
    func runObjects() throws {
        let n = self.n, nLabel = self.nLabel, employees = self.employees
        let singles = employees.prefix(BenchScale.singleCommits)
        let ids = EmployeeData.lookupIDs(count: BenchScale.lookups, maxID: n)
        let contextDurable = StrataObjectEngine(durability: .everyCommit, writer: .context)
        let contextFastest = StrataObjectEngine(durability: .none, writer: .context)
        let batchDurable = StrataObjectEngine(durability: .everyCommit, writer: .batchInsert)
        let sqliteFull = GRDBEngine(synchronous: .full)
        let sqliteNormal = GRDBEngine(synchronous: .normal)

        let insert = SummaryRow.Figure.throughput(operations: n, unit: "rows")
        try compare("Insert \(nLabel) through a context, one save, durable (everyCommit vs FULL)", insert, repetitions: repetitions,
                    strata: { try Workloads.insertOneTransaction(contextDurable, employees) },
                    sqlite: { try Workloads.insertOneTransaction(sqliteFull, employees) })
        try compare("Insert \(nLabel) through a context, one save, fastest (none vs NORMAL)", insert, repetitions: repetitions,
                    strata: { try Workloads.insertOneTransaction(contextFastest, employees) },
                    sqlite: { try Workloads.insertOneTransaction(sqliteNormal, employees) })
        try compare("Insert \(nLabel) with store.batchInsert, durable (everyCommit vs FULL)", insert, repetitions: repetitions,
                    strata: { try Workloads.insertOneTransaction(batchDurable, employees) },
                    sqlite: { try Workloads.insertOneTransaction(sqliteFull, employees) })
        if !skipSingles {
            try compare("\(BenchScale.label(singles.count)) single saves through a context, durable (everyCommit vs FULL)",
                        .throughput(operations: singles.count, unit: "commits"), repetitions: 1,
                        strata: { try Workloads.insertEachInOwnTransaction(contextDurable, singles) },
                        sqlite: { try Workloads.insertEachInOwnTransaction(sqliteFull, singles) })
            try compare("\(BenchScale.label(singles.count)) single saves through contexts on \(Self.concurrentWriters) threads at once, durable (everyCommit vs FULL)",
                        .throughput(operations: singles.count, unit: "commits"), repetitions: 1,
                        strata: { try Workloads.insertEachInOwnTransaction(contextDurable, singles, threads: Self.concurrentWriters) },
                        sqlite: { try Workloads.insertEachInOwnTransaction(sqliteFull, singles, threads: Self.concurrentWriters) })
        }

        progress("building object-layer fixtures of \(nLabel) employees")
        let strataStore = try Workloads.openForFetch(contextDurable, employees)
        let sqliteStore = try Workloads.openForFetch(sqliteFull, employees)
        var open = true
        defer {
            if open {
                try? strataStore.close()
                try? sqliteStore.close()
            }
        }
        try check(compare("Fetch \(BenchScale.label(ids.count)) random ids of \(nLabel) through faults, read name + salary",
                          .throughput(operations: ids.count, unit: "lookups"), repetitions: repetitions,
                          strata: { Workloads.fetch(strataStore, ids: ids) },
                          sqlite: { Workloads.fetch(sqliteStore, ids: ids) }))
        let indexed = EmployeeQuery.byDepartment(count: EmployeeQuery.indexedQueries)
        try check(compare("Query \(nLabel): departmentID == d (indexed), by salary desc, limit 20",
                          .throughput(operations: indexed.count, unit: "queries"), repetitions: repetitions,
                          strata: { Workloads.query(strataStore, indexed) },
                          sqlite: { Workloads.query(sqliteStore, indexed) }))
        let scanned = EmployeeQuery.bySalary(count: EmployeeQuery.scanQueries)
        try check(compare("Query \(nLabel): salary BETWEEN (not indexed), by name, limit 20",
                          .throughput(operations: scanned.count, unit: "queries"), repetitions: repetitions,
                          strata: { Workloads.query(strataStore, scanned) },
                          sqlite: { Workloads.query(sqliteStore, scanned) }))
        let ordered = EmployeeQuery.byDepartmentOrder(count: EmployeeQuery.orderedQueries)
        try check(compare("Query \(nLabel): by departmentID desc (indexed), salary desc, name, limit 20, no predicate",
                          .throughput(operations: ordered.count, unit: "queries"), repetitions: repetitions,
                          strata: { Workloads.query(strataStore, ordered) },
                          sqlite: { Workloads.query(sqliteStore, ordered) }))
        open = false
        try strataStore.close()
        try sqliteStore.close()

        try check(compare("Open \(nLabel) + count, Strata ObjectStore", .milliseconds, repetitions: max(repetitions, 5),
                          strata: { try Workloads.open(contextDurable, employees) },
                          sqlite: { try Workloads.open(sqliteFull, employees) }), expected: n)
        // Paranoid open verifies the whole store (every frame, index file, counter and
        // record) before it answers; SQLite's whole-database check is integrity_check.
        let paranoid = StrataObjectEngine(durability: .everyCommit, writer: .context, paranoid: true)
        try check(compare("Paranoid open \(nLabel) + count (paranoidChecks vs PRAGMA integrity_check)", .milliseconds, repetitions: repetitions,
                          strata: { try Workloads.open(paranoid, employees) },
                          sqlite: { try Workloads.open(GRDBEngine(synchronous: .full, integrityCheck: true), employees) }), expected: n)
    }
}
