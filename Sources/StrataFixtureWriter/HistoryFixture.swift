import Foundation
import Strata

/// Scenario 1's v1 store with history tracked through a life of use: saves by two
/// authors (inserts, raises, a move, deletes), a batch insert and a batch delete, the
/// oldest history deleted, a compaction, and one more save. The data file beside it
/// holds the history the store must answer, one JSON line per transaction without its
/// timestamp: `{"token": N, "author": A, "context": C, "changes": [["insert", "Employee", 3, []], …],
/// "state": [["Employee 0", 40000, "Engineering"], …]}`. `state` (from format 5 on) is
/// every employee's name, salary and department right after the transaction, as the
/// store answered when it had just committed it: what a read as of the token must give.
struct HistoryFixture {
    let store: String
    let modelFile: String
    let dataFile: String

    static func options() -> StoreOptions {
        var options = StoreOptions()
        options.historyTracking = true
        options.historyRetention = .unbounded
        options.log.segmentSizeLimit = 8 << 10
        return options
    }

    func write() throws {
        guard !FileManager.default.fileExists(atPath: store) else {
            throw StrataError(.invalidArgument, "\(store) exists: the writer makes a new store only")
        }
        let model = try ObjectModel(contentsOf: URL(fileURLWithPath: modelFile))
        let objects = try ObjectStore(at: store, model: model, options: Self.options())
        defer { try? objects.close() }
        var states: [UInt64: [[Any]]] = [:]
        func note() throws { states[objects.currentHistoryToken.sequence] = try Self.state(of: objects) }
        let context = objects.newContext()
        context.transactionAuthor = "hr"
        context.name = "onboarding"
        var departments: [ManagedObject] = []
        for name in ["Engineering", "Sales", "Support"] {
            let department = try context.insert("Department")
            try department.setValue(name, forKey: "name")
            departments.append(department)
        }
        try context.save()
        try note()
        var employees: [ManagedObject] = []
        for index in 0..<12 {
            let employee = try context.insert("Employee")
            try employee.setValue("Employee \(index)", forKey: "name")
            try employee.setValue(40_000 + 1_000 * Double(index), forKey: "salary")
            try employee.setObject(departments[index % 3], forKey: "department")
            employees.append(employee)
            if index % 4 == 3 {
                try context.save()
                try note()
            }
        }
        let payroll = objects.newContext()
        payroll.transactionAuthor = "payroll"
        for index in stride(from: 0, to: 12, by: 3) {
            let employee = try payroll.existingObject(with: employees[index].objectID)
            try employee.setValue(50_000 + Double(index), forKey: "salary")
        }
        try payroll.save()
        try note()
        try employees[4].setObject(departments[0], forKey: "department")
        try context.delete(employees[7])
        try context.save()
        try note()
        _ = try objects.batchInsert(entityName: "Employee", objects: (0..<4).map { index in
            ["name": .string("Contractor \(index)"), "salary": .double(30_000)]
        })
        try note()
        _ = try objects.batchDelete(entityName: "Employee", predicate: try Predicate(format: "salary < 31000"))
        try note()
        // The oldest two transactions go; the compaction reclaims them.
        let oldest = try objects.fetchHistory(limit: 3)
        try objects.deleteHistory(before: oldest[2].token)
        guard let log = objects.records as? LogStore else { throw StrataError(.invalidArgument, "not a segment log") }
        _ = try log.compact(force: true)
        try employees[1].setValue("Employee 1 (renamed)", forKey: "name")
        try context.save()
        try note()

        var lines = ""
        for transaction in try objects.fetchHistory() { lines += try Self.line(transaction, state: states[transaction.token.sequence]) + "\n" }
        try Data(lines.utf8).write(to: URL(fileURLWithPath: dataFile))
        try objects.close()
    }

    /// A transaction as the data file holds it.
    static func line(_ transaction: HistoryTransaction, state: [[Any]]?) throws -> String {
        let changes: [[Any]] = transaction.changes.map { change in
            [change.changeType.rawValue, change.changedObjectID.entityName, change.changedObjectID.serial, change.updatedAttributes]
        }
        var object: [String: Any] = ["token": transaction.token.sequence, "changes": changes]
        if let author = transaction.author { object["author"] = author }
        if let name = transaction.contextName { object["context"] = name }
        if let state { object["state"] = state }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Every employee as `[name, salary, department name or null]`, sorted by name.
    static func state(of store: ObjectStore) throws -> [[Any]] {
        let context = store.newContext()
        return try context.fetch(FetchRequest(entityName: "Employee")).map { employee -> [Any] in
            let department = try employee.object("department")?.string("name")
            return [try employee.string("name") ?? "", try employee.double("salary") ?? 0, department.map { $0 as Any } ?? NSNull()]
        }.sorted { ($0[0] as? String ?? "") < ($1[0] as? String ?? "") }
    }
}
