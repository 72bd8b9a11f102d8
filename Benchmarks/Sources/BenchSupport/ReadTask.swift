import Foundation

/// The scale section's memory figure, one side at a time in a fresh child process of
/// BenchSummary: open a store of employees, count them, and read name and salary of
/// `BenchScale.lookups` random ids (`EmployeeData.lookupIDs`, uniform over 1…count).
/// What counts is the process's resident set after the reads (`residentAfter`), beside
/// the one before the open (`residentBefore`: the runtime and the libraries) — the
/// target is about the whole process, so nothing else may live in it.
public enum ReadTask: String, Sendable, CaseIterable {
    /// Strata's engine (`StrataLog`): `LogStore.open`, `count`, `get` per id.
    case readStrata = "read-strata"
    /// SQLite through GRDB: `DatabasePool` open, `COUNT(*)`, one cached `SELECT` per id.
    case readSQLite = "read-sqlite"

    public var side: EngineSide {
        switch self {
        case .readStrata: .strata
        case .readSQLite: .sqlite
        }
    }

    /// The engine whose fixture this task reads (the fixture is the same bytes for
    /// every configuration of a side).
    public var engine: any EmployeeEngine {
        switch self {
        case .readStrata: StrataLogEngine(durability: .everyCommit)
        case .readSQLite: GRDBEngine(synchronous: .full)
        }
    }

    /// The measured part: open, count, read; the store closes at `finish`, after the
    /// resident set was taken.
    public func iteration(in directory: String) throws -> WorkloadIteration {
        let engine = self.engine
        let notes = Notes()
        var opened: (any EmployeeStore)?
        return WorkloadIteration(
            run: {
                notes["residentBefore"] = ResidentMemory.current
                let store = try engine.open(in: directory)
                opened = store
                let count = try store.count()
                let ids = EmployeeData.lookupIDs(count: BenchScale.lookups, maxID: count)
                let checksum = try store.fetchNameAndSalary(ids: ids)
                notes["residentAfter"] = ResidentMemory.current
                notes["count"] = count
                return checksum
            },
            finish: { try opened?.close() },
            notes: notes)
    }
}
