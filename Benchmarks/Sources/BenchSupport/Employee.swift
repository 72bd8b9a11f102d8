/// One row of the workloads: the Employees entity of DESIGN.md's scenario 1, without
/// its photo. Both engines store exactly these five values.
public struct Employee: Sendable, Equatable {
    /// 1-based and dense, so that lookups can draw ids at random.
    public var id: Int64
    public var name: String
    public var email: String
    public var salary: Int64
    /// The to-one department reference (1…`Employee.departmentCount`), indexed on both sides.
    public var departmentID: Int64

    public init(id: Int64, name: String, email: String, salary: Int64, departmentID: Int64) {
        self.id = id
        self.name = name
        self.email = email
        self.salary = salary
        self.departmentID = departmentID
    }

    public static let departmentCount: Int64 = 100
}
