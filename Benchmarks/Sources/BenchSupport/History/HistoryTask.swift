import Foundation

/// History's memory-heavy parts, each in a fresh child process of BenchSummary so that
/// its peak resident set is its own: N employees inserted through a context and saved
/// once (SQLite: one transaction), history off or on; a read as of a past token.
public enum HistoryTask: String, Sendable, CaseIterable {
    case strataOff = "history-save-off"
    case strataOn = "history-save-on"
    case sqliteOff = "history-sqlite-off"
    case sqliteOn = "history-sqlite-on"
    /// A read as of a token 1,000 saves back, on a fresh log and after a compaction.
    case pastSnapshot = "history-past-snapshot"
    case pastSnapshotCompacted = "history-past-snapshot-compacted"

    /// A scratch directory naming the employee count (the caller removes it).
    public func prepare(count: Int) throws -> ScratchDirectory {
        let directory = try ScratchDirectory(rawValue)
        try String(count).write(toFile: Self.countPath(in: directory.path), atomically: true, encoding: .utf8)
        return directory
    }

    /// The measured part: the insert and its save, into a store of its own.
    public func iteration(in directory: String) throws -> WorkloadIteration {
        let text = try String(contentsOfFile: Self.countPath(in: directory), encoding: .utf8)
        guard let count = Int(text) else { throw BenchError("no employee count in \(directory)") }
        let employees = EmployeeData.employees(count: count)
        switch self {
        case .strataOff: return try HistoryWorkload.strataOneSave(employees, history: false)
        case .strataOn: return try HistoryWorkload.strataOneSave(employees, history: true)
        case .sqliteOff: return try HistoryWorkload.sqliteOneTransaction(employees, history: false)
        case .sqliteOn: return try HistoryWorkload.sqliteOneTransaction(employees, history: true)
        case .pastSnapshot: return try HistoryWorkload.strataPastSnapshot(count: count, commitsBack: 1_000, compacted: false)
        case .pastSnapshotCompacted: return try HistoryWorkload.strataPastSnapshot(count: count, commitsBack: 1_000, compacted: true)
        }
    }

    private static func countPath(in directory: String) -> String { (directory as NSString).appendingPathComponent("count") }
}
