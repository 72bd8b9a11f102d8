import BenchSupport
import Foundation

extension Summary {
    /// Typed models (StrataData: `@Model`, `ModelContext`, `#Predicate`) against the
    /// untyped object layer they are built on, in the same run, each beside SQLite. The
    /// target: the typed path costs at most 1.2× the untyped one.
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

        // Typed and untyped share one fixture store (the same entity), which one process
        // may open only once at a time: each side's store is open for its own three
        // workloads, then closed.
        let indexed = EmployeeQuery.byDepartment(count: EmployeeQuery.indexedQueries)
        let scanned = EmployeeQuery.bySalary(count: EmployeeQuery.scanQueries)
        func measureReads(_ engine: any EmployeeEngine) throws -> [Sample] {
            progress("fetch and queries of \(nLabel) · \(engine.name)")
            let store = try Workloads.openForFetch(engine, employees)
            defer { try? store.close() }
            return [try Sample.measure(repetitions: repetitions) { Workloads.fetch(store, ids: ids) },
                    try Sample.measure(repetitions: repetitions) { Workloads.query(store, indexed) },
                    try Sample.measure(repetitions: repetitions) { Workloads.query(store, scanned) }]
        }
        let t = try measureReads(typed), u = try measureReads(untyped), q = try measureReads(sqlite)
        let reads: [(String, SummaryRow.Figure)] = [
            ("Fetch \(BenchScale.label(ids.count)) random ids of \(nLabel) through faults, read name + salary", .throughput(operations: ids.count, unit: "lookups")),
            ("Query \(nLabel): departmentID == d (indexed), by salary desc, limit 20", .throughput(operations: indexed.count, unit: "queries")),
            ("Query \(nLabel): salary BETWEEN (not indexed), by name, limit 20", .throughput(operations: scanned.count, unit: "queries")),
        ]
        for (i, (workload, figure)) in reads.enumerated() {
            try keepTyped(workload, figure, checked: true, typed: t[i], untyped: u[i], sqlite: q[i])
        }
    }

    /// Measures typed, untyped and SQLite in turns, as the same repetitions;
    /// keeps an untyped row and a typed row (each beside SQLite) and the typed/untyped
    /// time ratio as a finding. `checked`: all three must return the same checksum.
    func compareTyped(_ workload: String, _ figure: SummaryRow.Figure, checked: Bool = false,
                      typed: () throws -> WorkloadIteration, untyped: () throws -> WorkloadIteration,
                      sqlite: () throws -> WorkloadIteration) throws {
        progress("\(workload) (typed, untyped, SQLite)")
        let samples = try Sample.measureInTurns(repetitions: repetitions, sides: 3) { side in
            switch side {
            case 0: try typed()
            case 1: try untyped()
            default: try sqlite()
            }
        }
        try keepTyped(workload, figure, checked: checked, typed: samples[0], untyped: samples[1], sqlite: samples[2])
    }

    /// Keeps the untyped and typed rows of three samples and their time ratio.
    func keepTyped(_ workload: String, _ figure: SummaryRow.Figure, checked: Bool,
                   typed t: Sample, untyped u: Sample, sqlite q: Sample) throws {
        if checked, t.result != u.result || u.result != q.result {
            throw BenchError("\(workload): typed returned \(t.result), untyped \(u.result), SQLite \(q.result)")
        }
        add("\(workload) · untyped (Strata objects)", figure, strata: u, sqlite: q)
        add("\(workload) · typed (StrataData @Model)", figure, strata: t, sqlite: q)
        findings.append(String(format: "Typed/untyped time, %@: %.2f× (typed %.1f ms, untyped %.1f ms; target ≤ 1.2×)",
                               workload, t.seconds / u.seconds, t.seconds * 1000, u.seconds * 1000))
    }
}
