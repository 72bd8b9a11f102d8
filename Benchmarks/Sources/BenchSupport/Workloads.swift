/// The workloads, each as a prepared iteration (set-up done, measured part ready).
/// The Strata and SQLite sides of a workload do the same logical work on the same data.
public enum Workloads {
    /// (1) Insert all employees in one transaction into a new, empty store.
    public static func insertOneTransaction(_ engine: any EmployeeEngine, _ employees: [Employee]) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("insert")
        let store = try engine.create(in: scratch.path)
        return WorkloadIteration(
            run: { try store.insertInOneTransaction(employees); return employees.count },
            finish: { try store.close(); scratch.remove() })
    }

    /// (2) Insert each employee in its own transaction into a new, empty store.
    public static func insertEachInOwnTransaction(_ engine: any EmployeeEngine, _ employees: ArraySlice<Employee>) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("singles")
        let store = try engine.create(in: scratch.path)
        return WorkloadIteration(
            run: { try store.insertEachInOwnTransaction(employees); return employees.count },
            finish: { try store.close(); scratch.remove() })
    }

    /// (2b) Each employee in a transaction of its own, from `threads` threads at once.
    public static func insertEachInOwnTransaction(_ engine: any EmployeeEngine, _ employees: ArraySlice<Employee>, threads: Int) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("concurrent-singles")
        let store = try engine.create(in: scratch.path)
        return WorkloadIteration(
            run: { try store.insertEachInOwnTransaction(employees, threads: threads); return employees.count },
            finish: { try store.close(); scratch.remove() })
    }

    /// (3) Random lookups by id in an open store of all employees, reading name and
    /// salary. The store stays open across iterations: open it with `openForFetch`.
    public static func openForFetch(_ engine: any EmployeeEngine, _ employees: [Employee]) throws -> any EmployeeStore {
        let store = try engine.open(in: FixtureCache.shared.directory(for: engine, employees: employees))
        try store.prepareForFetch()
        return store
    }

    public static func fetch(_ store: any EmployeeStore, ids: [Int64]) -> WorkloadIteration {
        WorkloadIteration(run: { try store.fetchNameAndSalary(ids: ids) }, finish: {})
    }

    /// (3b) Queries (`EmployeeQuery`) one after another in an open store of all
    /// employees (open it with `openForFetch`), reading name and salary of each result.
    public static func query(_ store: any EmployeeStore, _ queries: [EmployeeQuery]) -> WorkloadIteration {
        WorkloadIteration(run: { try store.run(queries) }, finish: {})
    }

    /// (4) Open a store of all employees and count them. Strata with its index files,
    /// or (`scan`) with them deleted, so that open rebuilds each from its segment (and
    /// writes it again, as a real open after a lost index does).
    public static func open(_ engine: any EmployeeEngine, _ employees: [Employee], scan: Bool = false) throws -> WorkloadIteration {
        let directory = try FixtureCache.shared.directory(for: engine, employees: employees)
        if scan { try StrataLogEngine.removeIndexFiles(in: directory) }
        return openAndCount(engine, in: directory)
    }

    /// Opens the store in `directory` and counts its employees; closes it at `finish`.
    public static func openAndCount(_ engine: any EmployeeEngine, in directory: String) -> WorkloadIteration {
        var opened: (any EmployeeStore)?
        return WorkloadIteration(
            run: {
                let store = try engine.open(in: directory)
                opened = store
                return try store.count()
            },
            finish: { try opened?.close() })
    }
}
