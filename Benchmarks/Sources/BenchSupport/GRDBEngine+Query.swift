import GRDB

extension GRDBEmployeeStore {
    /// The queries in one read transaction, each a cached prepared statement.
    func run(_ queries: [EmployeeQuery]) throws -> Int {
        try pool.read { db in
            let byDepartment = try db.cachedStatement(sql: "SELECT name, salary FROM employee WHERE departmentId = ? ORDER BY salary DESC, name LIMIT ?")
            let bySalary = try db.cachedStatement(sql: "SELECT name, salary FROM employee WHERE salary BETWEEN ? AND ? ORDER BY name LIMIT ?")
            let byDepartmentOrder = try db.cachedStatement(sql: "SELECT name, salary FROM employee ORDER BY departmentId DESC, salary DESC, name LIMIT ?")
            var checksum = 0
            for query in queries {
                let statement: Statement
                switch query {
                case let .department(id, limit):
                    statement = byDepartment
                    statement.setUncheckedArguments([id, limit])
                case let .salaryRange(range, limit):
                    statement = bySalary
                    statement.setUncheckedArguments([range.lowerBound, range.upperBound, limit])
                case let .departmentOrder(limit):
                    statement = byDepartmentOrder
                    statement.setUncheckedArguments([limit])
                }
                let rows = try Row.fetchCursor(statement)
                while let row = try rows.next() {
                    let name: String = row[0]
                    let salary: Int64 = row[1]
                    checksum &+= Employee.fetchChecksum(name: name, salary: salary)
                }
            }
            return checksum
        }
    }
}
