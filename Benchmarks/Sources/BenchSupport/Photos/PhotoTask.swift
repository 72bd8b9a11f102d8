import Foundation

/// One measured part of scenario 1 on one side, runnable in-process (package-benchmark)
/// or in a fresh child process (BenchSummary, so that peak resident memory is the
/// workload's alone). The fixture: a v1 store of the scenario in its side's format.
public enum PhotoTask: String, Sendable, CaseIterable {
    /// Fetch every employee and read its name (Strata: faults, no photo bytes).
    case listStrata = "list-strata"
    /// A cursor over id and name of a table that holds the photo column.
    case listSQLite = "list-sqlite"
    /// `Row.fetchAll` of every column, photos included (orientation).
    case fetchAllSQLite = "fetchall-sqlite"
    /// Photo split with `PhotoSplitPolicy`, the default 64 MiB budget.
    case migrateStrata = "migrate-strata"
    /// The same change through GRDB's `DatabaseMigrator`, with its deferred foreign-key check.
    case migrateSQLite = "migrate-sqlite"
    /// … and with `disablingDeferredForeignKeyChecks()`.
    case migrateSQLiteUnchecked = "migrate-sqlite-nofk"

    public var side: EngineSide {
        switch self {
        case .listStrata, .migrateStrata: .strata
        case .listSQLite, .fetchAllSQLite, .migrateSQLite, .migrateSQLiteUnchecked: .sqlite
        }
    }

    /// Whether the task changes its store (it then runs on a copy of the fixture).
    public var changesStore: Bool {
        switch self {
        case .migrateStrata, .migrateSQLite, .migrateSQLiteUnchecked: true
        case .listStrata, .listSQLite, .fetchAllSQLite: false
        }
    }

    /// The prepared iteration on the store in `directory` (the fixture, or a copy).
    public func iteration(in directory: String) throws -> WorkloadIteration {
        switch self {
        case .listStrata: try StrataPhotos.listNames(in: directory)
        case .listSQLite: try SQLitePhotos.listNames(in: directory)
        case .fetchAllSQLite: try SQLitePhotos.fetchAllWithPhotos(in: directory)
        case .migrateStrata: try StrataPhotos.migrate(in: directory)
        case .migrateSQLite: try SQLitePhotos.migrate(in: directory, foreignKeyChecks: true)
        case .migrateSQLiteUnchecked: try SQLitePhotos.migrate(in: directory, foreignKeyChecks: false)
        }
    }

    /// The fixture of this task's side for `scenario`, built once per process.
    public static func fixture(_ side: EngineSide, _ scenario: PhotoScenario) throws -> String {
        try FixtureCache.shared.directory(key: "photos-\(side.rawValue)-\(scenario.key)") { path in
            switch side {
            case .strata: try StrataPhotos.build(in: path, scenario)
            case .sqlite: try SQLitePhotos.build(in: path, scenario)
            }
        }
    }

    /// The directory to run in: the fixture itself, or a fresh copy of it when the task
    /// changes its store (removed by `remove`, nil for the fixture).
    public func prepare(_ scenario: PhotoScenario) throws -> (directory: String, scratch: ScratchDirectory?) {
        let fixture = try Self.fixture(side, scenario)
        guard changesStore else { return (fixture, nil) }
        let scratch = try ScratchDirectory("photos-copy")
        let copy = (scratch.path as NSString).appendingPathComponent("copy")
        do {
            try TreeCopy.copy(fixture, to: copy)
        } catch {
            scratch.remove()
            throw error
        }
        return (copy, scratch)
    }

    /// In-process: the iteration on the fixture or a fresh copy, the copy removed at finish.
    public func workload(_ scenario: PhotoScenario) throws -> WorkloadIteration {
        let (directory, scratch) = try prepare(scenario)
        let iteration: WorkloadIteration
        do {
            iteration = try self.iteration(in: directory)
        } catch {
            scratch?.remove()
            throw error
        }
        return WorkloadIteration(
            run: iteration.run,
            finish: { try iteration.finish(); scratch?.remove() },
            notes: iteration.notes)
    }
}
