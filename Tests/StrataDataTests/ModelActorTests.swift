import Foundation
import StrataData
import StrataTestSupport
import Testing

/// The typed async API: `ModelContainer.read`/`write` with a `ModelContext`, and a
/// `@ModelActor` whose methods run on a thread of Strata's with their own context.
@ModelActor actor EmployeeImporter {
    func add(_ name: String, salary: Double) throws -> PersistentIdentifier {
        let employee = Employee(name: name, email: "\(name.lowercased())@example.com")
        employee.salary = salary
        modelContext.insert(employee)
        try modelContext.save()
        return employee.persistentModelID
    }

    func names() throws -> [String] {
        try modelContext.fetch(FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    func salary(of id: PersistentIdentifier) -> Double? {
        self[id, as: Employee.self]?.salary
    }

    /// Checks, before and after a suspension, that the method runs on the executor the
    /// actor declares (the check traps when it does not).
    func checkIsolation() async throws {
        preconditionIsolated()
        try await Task.sleep(for: .milliseconds(1))
        preconditionIsolated()
    }
}

@Suite struct ModelActorTests {
    static func container() throws -> ModelContainer {
        try ModelContainer(for: Employee.self, Department.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func aModelActorSavesAndReadsThroughItsOwnContext() async throws {
        let container = try Self.container()
        let importer = EmployeeImporter(modelContainer: container)
        let ada = try await importer.add("Ada", salary: 120)
        _ = try await importer.add("Grace", salary: 130)
        #expect(try await importer.names() == ["Ada", "Grace"])
        #expect(await importer.salary(of: ada) == 120)
        // Another context sees what the actor saved.
        let names = try await container.read { context in
            try context.fetch(FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(names == ["Ada", "Grace"])
    }

    @Test func aModelActorsMethodsRunOnTheExecutorItDeclares() async throws {
        let importer = EmployeeImporter(modelContainer: try Self.container())
        try await importer.checkIsolation()
    }

    @Test func containerWriteSavesAndReadSeesIt() async throws {
        let container = try Self.container()
        let id = try await container.write { context in
            let sales = Department(name: "Sales")
            let ada = Employee(name: "Ada", email: "ada@example.com")
            ada.department = sales
            context.insert(ada)
            return ada.persistentModelID
        }
        let department = try await container.read { context in
            try context.existingModel(for: id, as: Employee.self).department?.name
        }
        #expect(department == "Sales")
    }

    /// A model's serial travels as a number and comes back as its identifier; a serial
    /// no object can have, or a type the container does not hold, gives none.
    @Test func anIdentifierComesBackFromItsSerial() async throws {
        let container = try Self.container()
        let id = try await container.write { context in
            let ada = Employee(name: "Ada", email: "ada@example.com")
            context.insert(ada)
            return ada.persistentModelID
        }
        let serial = try #require(id.serial)
        let again = try #require(container.persistentIdentifier(for: Employee.self, serial: serial))
        #expect(again == id)
        let name = try await container.read { try $0.existingModel(for: again, as: Employee.self).name }
        #expect(name == "Ada")
        #expect(container.persistentIdentifier(for: Employee.self, serial: 0) == nil)
        #expect(container.persistentIdentifier(for: Employee.self, serial: 1 << 48) == nil)
        #expect(container.persistentIdentifier(for: TripPhoto.self, serial: serial) == nil, "not one of this container's models")
        let missing = try #require(container.persistentIdentifier(for: Department.self, serial: serial + 1_000))
        await #expect(throws: StrataError.self) {
            _ = try await container.read { try $0.existingModel(for: missing, as: Department.self).name }
        }
    }

    @Test func aTypedWriteThatBreaksAUniqueRuleSavesNothing() async throws {
        let container = try Self.container()
        try await container.write { context in context.insert(Employee(name: "Ada", email: "ada@example.com")) }
        await #expect(throws: StrataError.self) {
            try await container.write { context in context.insert(Employee(name: "Ada II", email: "ada@example.com")) }
        }
        let count = try await container.read { try $0.fetchCount(FetchDescriptor<Employee>()) }
        #expect(count == 1)
    }

    @Test func openAndCloseOffThePool() async throws {
        let directory = try TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.path + "/store")
        let container = try await ModelContainer.open(for: Employee.self, Department.self, configurations: ModelConfiguration(url: url))
        try await container.write { $0.insert(Employee(name: "Ada", email: "ada@example.com")) }
        try await container.close()
        let reopened = try await ModelContainer.open(for: Employee.self, Department.self, configurations: ModelConfiguration(url: url))
        #expect(try await reopened.read { try $0.fetchCount(FetchDescriptor<Employee>()) } == 1)
        try await reopened.close()
    }
}
