/// One query of the query workload: a predicate, sort keys and a limit, the same on
/// both sides. Both read name and salary of every result.
///
/// - `department`: `departmentID == d`, sorted by salary descending then name, first
///   `limit`. The attribute is indexed on both sides (Strata `indexed: true`, SQLite
///   `CREATE INDEX … ON employee(departmentId)`), so only ~N/100 rows are judged.
/// - `salaryRange`: `salary BETWEEN lo AND hi`, sorted by name, first `limit`. Salary
///   has no index on either side: every row is judged.
/// - `departmentOrder`: no predicate, sorted by department descending (the indexed
///   attribute), then salary descending, then name, first `limit`. Both sides read the
///   index from its last department down and stop once the top rows are settled: the
///   last department's ~N/100 rows (ties on the department are sorted by salary).
public enum EmployeeQuery: Sendable, Equatable {
    case department(Int64, limit: Int)
    case salaryRange(ClosedRange<Int64>, limit: Int)
    case departmentOrder(limit: Int)

    /// Results per query.
    public static let limit = 20

    /// `count` queries on the indexed attribute, cycling through the departments.
    public static func byDepartment(count: Int) -> [EmployeeQuery] {
        (0..<count).map { .department(1 + Int64($0) % Employee.departmentCount, limit: limit) }
    }

    /// `count` queries on the non-indexed attribute: salary windows of 2,000 (about 1.2%
    /// of the employees each) spread over the salary range.
    public static func bySalary(count: Int) -> [EmployeeQuery] {
        (0..<count).map { i in
            let low = 30_000 + Int64(i) * 160_000 / Int64(max(1, count))
            return .salaryRange(low...(low + 1_999), limit: limit)
        }
    }

    /// `count` queries ordered by the indexed attribute (all alike: no predicate).
    public static func byDepartmentOrder(count: Int) -> [EmployeeQuery] {
        Array(repeating: .departmentOrder(limit: limit), count: count)
    }

    /// Fixed by the workload (not by N): the indexed queries each judge ~N/100 rows,
    /// the scans every row, the ordered ones the last department's ~N/100.
    public static let indexedQueries = 100
    public static let scanQueries = 10
    public static let orderedQueries = 20
}
