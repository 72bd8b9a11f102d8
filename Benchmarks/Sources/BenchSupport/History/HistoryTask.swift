import Foundation

/// History's one large save, one side at a time in a fresh child process of
/// BenchSummary, so that each side's peak resident set is its own: N employees
/// inserted through a context and saved once (SQLite: one transaction), history off or on.
public enum HistoryTask: String, Sendable, CaseIterable {
    case strataOff = "history-save-off"
    case strataOn = "history-save-on"
    case sqliteOff = "history-sqlite-off"
    case sqliteOn = "history-sqlite-on"

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
        }
    }

    private static func countPath(in directory: String) -> String { (directory as NSString).appendingPathComponent("count") }
}
