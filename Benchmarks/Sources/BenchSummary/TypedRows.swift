import BenchSupport
import Foundation

extension Summary {
    /// Typed models (StrataData: `@Model`, `ModelContext`, `#Predicate`) against the
    /// untyped object layer they are built on, in the same run, each beside SQLite. Issue
    /// 17's target: the typed path costs at most 1.2× the untyped one.
    func runTyped() throws {
        let n = self.n, nLabel = self.nLabel, employees = self.employees
        let ids = EmployeeData.lookupIDs(count: BenchScale.lookups, maxID: n)
        let untyped = StrataObjectEngine(durability: .none, writer: .context)
        let typed = StrataTypedEngine(durability: .none)
        let sqlite = GRDBEngine(synchronous: .normal)

        try compareTyped("Insert \(nLabel) through a context, one save (none vs NORMAL)",
                         .throughput(operations: n, unit: "rows"),
                         typed: { try Workloads.insertOneTransaction(typed, employees) },
                         untyped: { try Workloads.insertOneTransaction(untyped, employees) },
                         sqlite: { try Workloads.insertOneTransaction(sqlite, employees) })

        progress("opening the typed, untyped and SQLite stores of \(nLabel) employees")
        let typedStore = try Workloads.openForFetch(typed, employees)
        let untypedStore = try Workloads.openForFetch(untyped, employees)
        let sqliteStore = try Workloads.openForFetch(sqlite, employees)
        defer {
            try? typedStore.close()
            try? untypedStore.close()
            try? sqliteStore.close()
        }
        try compareTyped("Fetch \(BenchScale.label(ids.count)) random ids of \(nLabel) through faults, read name + salary",
                         .throughput(operations: ids.count, unit: "lookups"), checked: true,
                         typed: { Workloads.fetch(typedStore, ids: ids) },
                         untyped: { Workloads.fetch(untypedStore, ids: ids) },
                         sqlite: { Workloads.fetch(sqliteStore, ids: ids) })
        let indexed = EmployeeQuery.byDepartment(count: EmployeeQuery.indexedQueries)
        try compareTyped("Query \(nLabel): departmentID == d (indexed), by salary desc, limit 20",
                         .throughput(operations: indexed.count, unit: "queries"), checked: true,
                         typed: { Workloads.query(typedStore, indexed) },
                         untyped: { Workloads.query(untypedStore, indexed) },
                         sqlite: { Workloads.query(sqliteStore, indexed) })
        let scanned = EmployeeQuery.bySalary(count: EmployeeQuery.scanQueries)
        try compareTyped("Query \(nLabel): salary BETWEEN (not indexed), by name, limit 20",
                         .throughput(operations: scanned.count, unit: "queries"), checked: true,
                         typed: { Workloads.query(typedStore, scanned) },
                         untyped: { Workloads.query(untypedStore, scanned) },
                         sqlite: { Workloads.query(sqliteStore, scanned) })
    }

    /// Measures typed, untyped and SQLite, one after the other, as the same repetitions;
    /// keeps an untyped row and a typed row (each beside SQLite) and the typed/untyped
    /// time ratio as a finding. `checked`: all three must return the same checksum.
    func compareTyped(_ workload: String, _ figure: SummaryRow.Figure, checked: Bool = false,
                      typed: () throws -> WorkloadIteration, untyped: () throws -> WorkloadIteration,
                      sqlite: () throws -> WorkloadIteration) throws {
        progress("\(workload) (typed, untyped, SQLite)")
        let t = try Sample.measure(repetitions: repetitions, typed)
        let u = try Sample.measure(repetitions: repetitions, untyped)
        let q = try Sample.measure(repetitions: repetitions, sqlite)
        if checked, t.result != u.result || u.result != q.result {
            throw BenchError("\(workload): typed returned \(t.result), untyped \(u.result), SQLite \(q.result)")
        }
        add("\(workload) · untyped (Strata objects)", figure, strata: u, sqlite: q)
        add("\(workload) · typed (StrataData @Model)", figure, strata: t, sqlite: q)
        findings.append(String(format: "Typed/untyped time, %@: %.2f× (typed %.1f ms, untyped %.1f ms; target ≤ 1.2×)",
                               workload, t.seconds / u.seconds, t.seconds * 1000, u.seconds * 1000))
    }
}
