/// The workload data: deterministic employees and lookup ids.
public enum EmployeeData {
    static let firstNames = ["Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace",
                             "Hedy", "John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Tony"]
    static let lastNames = ["Lovelace", "Turing", "Liskov", "Shannon", "Knuth", "Dijkstra", "Allen", "Hopper",
                            "Lamarr", "Backus", "Thompson", "Lamport", "Hamilton", "Wirth", "Perlman", "Hoare"]

    /// Employees 1…`count`, the same on every run (names and emails of 20–40 bytes).
    public static func employees(count: Int, seed: UInt64 = 0x5354_5241_5441) -> [Employee] {
        var random = SplitMix64(seed: seed)
        var result: [Employee] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            let id = Int64(i + 1)
            let first = firstNames[Int(random.next() % UInt64(firstNames.count))]
            let last = lastNames[Int(random.next() % UInt64(lastNames.count))]
            result.append(Employee(
                id: id,
                name: "\(first) \(last) \(id)",
                email: "\(first.lowercased()).\(last.lowercased()).\(id)@example.com",
                salary: 30_000 + Int64(random.next() % 170_000),
                departmentID: 1 + Int64(random.next() % UInt64(Employee.departmentCount))))
        }
        return result
    }

    /// `count` ids drawn uniformly from 1…`maxID`, the same on every run.
    public static func lookupIDs(count: Int, maxID: Int, seed: UInt64 = 0x4C4F_4F4B) -> [Int64] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in 1 + Int64(random.next() % UInt64(max(1, maxID))) }
    }
}
