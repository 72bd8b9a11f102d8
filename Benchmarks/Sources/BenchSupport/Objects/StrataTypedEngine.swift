import Foundation
import StrataData

/// The benchmark employee as a `@Model` class: the same entity as
/// `BenchModels.employees()`, so typed and untyped engines open the same fixtures.
@Model public final class TypedEmployee {
    #Index<TypedEmployee>([\.departmentID])
    public var name: String
    public var email: String
    public var salary: Int64 = 0
    public var departmentID: Int64 = 0

    public init(name: String, email: String, salary: Int64, departmentID: Int64) {
        self.name = name
        self.email = email
        self.salary = salary
        self.departmentID = departmentID
    }

    /// The entity is "Employee", as in the untyped model.
    public static var entityName: String { "Employee" }
}

/// Strata through StrataData (`@Model`, `ModelContext`, `#Predicate`): the typed twin of
/// `StrataObjectEngine(writer: .context)`, for the typed-vs-untyped rows.
public struct StrataTypedEngine: EmployeeEngine {
    public let durability: LogStoreOptions.Durability

    public init(durability: LogStoreOptions.Durability = .everyCommit) {
        self.durability = durability
    }

    public var side: EngineSide { .strata }
    public var name: String { "Strata typed \(durability)" }
    public var fixtureBuilder: any EmployeeEngine { StrataObjectEngine(durability: .none, writer: .batchInsert) }

    func container(in directory: String, create: Bool) throws -> ModelContainer {
        var options = StrataObjectEngine.options(durability: durability, create: create)
        options.migration = .none
        let url = URL(fileURLWithPath: StrataObjectEngine.storePath(in: directory))
        return try ModelContainer(for: TypedEmployee.self, configurations: ModelConfiguration(url: url, options: options))
    }

    public func create(in directory: String) throws -> any EmployeeStore {
        StrataTypedEmployeeStore(container: try container(in: directory, create: true))
    }

    public func open(in directory: String) throws -> any EmployeeStore {
        StrataTypedEmployeeStore(container: try container(in: directory, create: false))
    }
}

final class StrataTypedEmployeeStore: EmployeeStore {
    let container: ModelContainer
    var identifiers: [PersistentIdentifier] = []

    init(container: ModelContainer) {
        self.container = container
    }

    func insertInOneTransaction(_ employees: [Employee]) throws {
        let context = ModelContext(container)
        for e in employees {
            context.insert(TypedEmployee(name: e.name, email: e.email, salary: e.salary, departmentID: e.departmentID))
        }
        try context.save()
    }

    func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>) throws {
        let context = ModelContext(container)
        for e in employees {
            context.insert(TypedEmployee(name: e.name, email: e.email, salary: e.salary, departmentID: e.departmentID))
            try context.save()
        }
    }

    func prepareForFetch() throws {
        identifiers = try ModelContext(container).fetchIdentifiers(FetchDescriptor<TypedEmployee>())
    }

    func fetchNameAndSalary(ids: [Int64]) throws -> Int {
        let context = ModelContext(container)
        var checksum = 0
        for id in ids {
            let index = Int(id) - 1
            guard identifiers.indices.contains(index),
                  let employee = try context.model(for: identifiers[index]) as? TypedEmployee else { continue }
            checksum &+= Employee.fetchChecksum(name: employee.name, salary: employee.salary)
        }
        return checksum
    }

    func run(_ queries: [EmployeeQuery]) throws -> Int {
        var checksum = 0
        for query in queries {
            var descriptor: FetchDescriptor<TypedEmployee>
            switch query {
            case let .department(id, limit):
                descriptor = FetchDescriptor(predicate: #Predicate { $0.departmentID == id },
                                             sortBy: [SortDescriptor(\.salary, order: .reverse), SortDescriptor(\.name)])
                descriptor.fetchLimit = limit
            case let .salaryRange(range, limit):
                let lower = range.lowerBound, upper = range.upperBound
                descriptor = FetchDescriptor(predicate: #Predicate { $0.salary >= lower && $0.salary <= upper },
                                             sortBy: [SortDescriptor(\.name)])
                descriptor.fetchLimit = limit
            case let .departmentOrder(limit):
                descriptor = FetchDescriptor(sortBy: [SortDescriptor(\.departmentID, order: .reverse), SortDescriptor(\.salary, order: .reverse),
                                                      SortDescriptor(\.name)])
                descriptor.fetchLimit = limit
            }
            let context = ModelContext(container)
            for employee in try context.fetch(descriptor) {
                checksum &+= Employee.fetchChecksum(name: employee.name, salary: employee.salary)
            }
        }
        return checksum
    }

    func count() throws -> Int { try ModelContext(container).fetchCount(FetchDescriptor<TypedEmployee>()) }

    func prepareForReopen() throws {
        guard let log = container.store.segmentLog else { throw BenchError("the object store is not a segment log") }
        try log.sealActiveSegment()
    }

    func close() throws { try container.close() }
}
