import Foundation
import Strata

/// Issue 15's read-forward cost: 100k random lookups by id (name, salary and bonus read
/// through faults) in a store of N employees migrated in place to
/// `BenchModels.employeesWithBonus()` with every other record rewritten since, so half
/// the records are of the older layout and read forward; beside the same lookups in a
/// store written directly at that model, every record current.
public enum OlderLayoutReads {
    public final class Store {
        let scratch: ScratchDirectory
        let store: ObjectStore
        let objectIDs: [ObjectID]

        init(scratch: ScratchDirectory, store: ObjectStore) throws {
            self.scratch = scratch
            self.store = store
            objectIDs = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee"))
        }

        public func close() {
            try? store.close()
            scratch.remove()
        }

        /// The lookups, one context for all of them, as workload 3 does.
        public func fetch(ids: [Int64]) -> WorkloadIteration {
            WorkloadIteration(run: {
                let context = self.store.newContext()
                var checksum = 0
                for id in ids {
                    let index = Int(id) - 1
                    guard self.objectIDs.indices.contains(index) else { continue }
                    let employee = try context.object(with: self.objectIDs[index])
                    guard let name = try employee.string("name"), let salary = try employee.int("salary"),
                          let bonus = try employee.int("bonus") else { continue }
                    checksum &+= Employee.fetchChecksum(name: name, salary: Int64(salary)) &+ bonus
                }
                return checksum
            }, finish: {})
        }
    }

    /// The fixture copied, migrated in place, and every other employee given a bonus
    /// of 0 again (the value it reads anyway): rewritten in the current layout.
    public static func mixed(_ employees: [Employee]) throws -> Store {
        let (scratch, copy) = try LightweightMigration.freshCopy(of: StrataObjectEngine(), employees)
        var options = StrataObjectEngine.options()
        options.migration = .inferred
        let store = try ObjectStore(at: StrataObjectEngine.storePath(in: copy), model: try BenchModels.employeesWithBonus(), options: options)
        let result = try Store(scratch: scratch, store: store)
        for start in stride(from: 0, to: result.objectIDs.count, by: 20_000) {
            let context = store.newContext()
            for index in stride(from: start, to: min(start + 20_000, result.objectIDs.count), by: 2) {
                try context.object(with: result.objectIDs[index]).setValue(Value.int(0), forKey: "bonus")
            }
            try context.save()
        }
        try settle(store)
        return result
    }

    /// Sealed and compacted, so that both stores lie on disk alike (compaction copies
    /// records as they are: the older layout stays) and only the layouts differ.
    static func settle(_ store: ObjectStore) throws {
        guard let log = store.records as? LogStore else { return }
        try log.sealActiveSegment()
        try log.compact(force: true)
    }

    /// The same employees written directly at the new model: every record current.
    public static func current(_ employees: [Employee]) throws -> Store {
        let scratch = try ScratchDirectory("current-layout")
        let store = try ObjectStore(at: StrataObjectEngine.storePath(in: scratch.path), model: try BenchModels.employeesWithBonus(),
                                    options: StrataObjectEngine.options())
        for start in stride(from: 0, to: employees.count, by: 50_000) {
            _ = try store.batchInsert(entityName: "Employee", objects: employees[start..<min(start + 50_000, employees.count)].map { e in
                ["name": .string(e.name), "email": .string(e.email), "salary": .int(e.salary), "departmentID": .int(e.departmentID), "bonus": .int(0)]
            })
        }
        try settle(store)
        return try Store(scratch: scratch, store: store)
    }
}
