import Foundation
import Logging
import Strata
import StrataLog

/// Strata's object layer: an `ObjectStore` of `BenchModels.employees()`, written
/// through an `ObjectContext` (insert, set four attributes, `save()`) or through
/// `store.batchInsert` (value dictionaries, no managed objects), read through faults
/// (`context.object(with:)`) and fetch requests.
public struct StrataObjectEngine: EmployeeEngine {
    /// How inserts are written.
    public enum Writer: String, Sendable {
        /// Managed objects in a context, one `save()` per transaction.
        case context
        /// `ObjectStore.batchInsert(entityName:dictionaryHandler:)` for one transaction
        /// (`objects:` for one object a transaction), no context.
        case batchInsert
    }

    public let durability: LogStoreOptions.Durability
    public let writer: Writer
    /// Whether open verifies the whole store first (`StoreOptions.paranoidChecks`).
    public let paranoid: Bool

    public init(durability: LogStoreOptions.Durability = .everyCommit, writer: Writer = .context, paranoid: Bool = false) {
        self.durability = durability
        self.writer = writer
        self.paranoid = paranoid
    }

    public var side: EngineSide { .strata }

    public var name: String {
        let durable = switch durability {
        case .everyCommit: "everyCommit"
        case .none: "none"
        case let .periodic(milliseconds): "periodic \(milliseconds)ms"
        }
        return "Strata objects \(writer.rawValue) \(durable)" + (paranoid ? " paranoid" : "")
    }

    public var fixtureBuilder: any EmployeeEngine { StrataObjectEngine(durability: .none, writer: .batchInsert) }

    /// The same directory name as the engine's, so `StrataLogEngine.removeIndexFiles` applies.
    public static func storePath(in directory: String) -> String { StrataLogEngine.storePath(in: directory) }

    /// Options without the default logger (it prints every open, which would be timed).
    public static func options(durability: LogStoreOptions.Durability = .everyCommit, create: Bool = true) -> StoreOptions {
        var options = StoreOptions()
        options.log.durability = durability
        options.log.createIfMissing = create
        options.logger = Logger(label: "strata.bench") { _ in SwiftLogNoOpLogHandler() }
        return options
    }

    public func create(in directory: String) throws -> any EmployeeStore {
        try StrataObjectEmployeeStore(store: ObjectStore(at: Self.storePath(in: directory), model: BenchModels.employees(),
                                                         options: Self.options(durability: durability)), writer: writer)
    }

    public func open(in directory: String) throws -> any EmployeeStore {
        var options = Self.options(durability: durability, create: false)
        options.paranoidChecks = paranoid
        return try StrataObjectEmployeeStore(store: ObjectStore(at: Self.storePath(in: directory), model: BenchModels.employees(), options: options),
                                             writer: writer)
    }
}

final class StrataObjectEmployeeStore: EmployeeStore {
    let store: ObjectStore
    let writer: StrataObjectEngine.Writer
    /// Employee id (1…N) − 1 → object id; filled by `prepareForFetch` (ids are handed
    /// out in insertion order, so employee i is the i-th object).
    var objectIDs: [ObjectID] = []

    init(store: ObjectStore, writer: StrataObjectEngine.Writer) {
        self.store = store
        self.writer = writer
    }

    static func fill(_ object: ManagedObject, with e: Employee) throws {
        try object.setValue(.string(e.name), forKey: "name")
        try object.setValue(.string(e.email), forKey: "email")
        try object.setValue(.int(e.salary), forKey: "salary")
        try object.setValue(.int(e.departmentID), forKey: "departmentID")
    }

    func insertInOneTransaction(_ employees: [Employee]) throws {
        switch writer {
        case .context:
            let context = store.newContext()
            for e in employees { try Self.fill(context.insert("Employee"), with: e) }
            try context.save()
        case .batchInsert:
            try Self.batchInsert(employees, into: store)
        }
    }

    /// `employees` in one `batchInsert` of the handler form (Core Data's
    /// `dictionaryHandler`): one dictionary at a time, as SQLite is handed one row at a
    /// time, so the insert holds a chunk and not N dictionaries and records (the array
    /// form holds both at once).
    static func batchInsert(_ employees: some Collection<Employee>, into store: ObjectStore) throws {
        var next = employees.startIndex
        try store.batchInsert(entityName: "Employee") { values in
            guard next < employees.endIndex else { return true }
            let e = employees[next]
            values = ["name": .string(e.name), "email": .string(e.email), "salary": .int(e.salary), "departmentID": .int(e.departmentID)]
            employees.formIndex(after: &next)
            return false
        }
    }

    /// A context per thread, one save per employee; the store's group commit lets the
    /// saves waiting on one fsync share it.
    func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>, threads: Int) throws {
        let store = self.store
        try onThreads(employees, threads: threads) { share in
            let context = store.newContext()
            for e in share {
                try Self.fill(context.insert("Employee"), with: e)
                try context.save()
            }
        }
    }

    func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>) throws {
        let context = store.newContext()
        for e in employees {
            switch writer {
            case .context:
                try Self.fill(context.insert("Employee"), with: e)
                try context.save()
            case .batchInsert:
                try store.batchInsert(entityName: "Employee", objects: [
                    ["name": .string(e.name), "email": .string(e.email), "salary": .int(e.salary), "departmentID": .int(e.departmentID)],
                ])
            }
        }
    }

    func prepareForFetch() throws {
        objectIDs = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee"))
    }

    /// Each lookup a fault from `context.object(with:)`, fired by reading `name`; the
    /// caller lets go of it, so the next lookup of the same id reads the store again.
    func fetchNameAndSalary(ids: [Int64]) throws -> Int {
        let context = store.newContext()
        var checksum = 0
        for id in ids {
            let index = Int(id) - 1
            guard objectIDs.indices.contains(index) else { continue }
            let employee = try context.object(with: objectIDs[index])
            guard let name = try employee.string("name"), let salary = try employee.int("salary") else { continue }
            checksum &+= Employee.fetchChecksum(name: name, salary: Int64(salary))
        }
        return checksum
    }

    /// Each query a fetch request in a new context (so no object outlives its query).
    func run(_ queries: [EmployeeQuery]) throws -> Int {
        var checksum = 0
        for query in queries {
            var request = FetchRequest(entityName: "Employee")
            switch query {
            case let .department(id, limit):
                request.predicate = try Predicate(format: "departmentID == %@", id)
                request.sortKeys = [.descending("salary"), .ascending("name")]
                request.fetchLimit = limit
            case let .salaryRange(range, limit):
                request.predicate = try Predicate(format: "salary >= %@ AND salary <= %@", range.lowerBound, range.upperBound)
                request.sortKeys = [.ascending("name")]
                request.fetchLimit = limit
            case let .departmentOrder(limit):
                request.sortKeys = [.descending("departmentID"), .descending("salary"), .ascending("name")]
                request.fetchLimit = limit
            }
            let context = store.newContext() // objects hold their context weakly: keep it
            for employee in try context.fetch(request) {
                guard let name = try employee.string("name"), let salary = try employee.int("salary") else { continue }
                checksum &+= Employee.fetchChecksum(name: name, salary: Int64(salary))
            }
        }
        return checksum
    }

    func count() throws -> Int { try store.newContext().count(for: FetchRequest(entityName: "Employee")) }

    func prepareForReopen() throws {
        guard let log = store.segmentLog else { throw BenchError("the object store is not a segment log") }
        try log.sealActiveSegment()
    }

    func close() throws { try store.close() }
}
