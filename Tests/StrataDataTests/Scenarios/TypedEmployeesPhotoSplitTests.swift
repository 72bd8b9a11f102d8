import Foundation
import StrataData
import StrataScenarios
import StrataTestSupport
import Testing

/// Scenario 1 in typed form: v1 employees with photos (external storage), a list
/// screen that reads no photo bytes, then a plan whose custom stage moves each photo
/// into its own `Photo` model, streaming the old employees in batches.
enum EmployeesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Department.self, Employee.self] }

    @Model final class Department {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Employee.department) var employees: [Employee] = []
        init(name: String) { self.name = name }
    }

    @Model final class Employee {
        #Index<Employee>([\.name])
        var name: String
        var salary: Double = 0
        @Attribute(.externalStorage) var photo: Data?
        var department: Department?
        init(name: String) { self.name = name }
    }
}

enum EmployeesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Department.self, Employee.self, Photo.self] }

    @Model final class Department {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Employee.department) var employees: [Employee] = []
        init(name: String) { self.name = name }
    }

    @Model final class Employee {
        #Index<Employee>([\.name])
        var name: String
        var salary: Double = 0
        var department: Department?
        @Relationship(deleteRule: .cascade, inverse: \Photo.employee) var profile: Photo?
        init(name: String) { self.name = name }
    }

    @Model final class Photo {
        @Attribute(.externalStorage) var photo: Data?
        var employee: Employee?
        init() {}
    }
}

enum EmployeesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [EmployeesV1.self, EmployeesV2.self] }
    static var stages: [MigrationStage] {
        [
            // The inferred part drops Employee.photo and adds Photo; didMigrate reads the
            // old employees batch by batch and gives each photo its own model, taking the
            // bytes by reference into the blob area through the untyped object.
            .customStreaming(fromVersion: EmployeesV1.self, toVersion: EmployeesV2.self, willMigrate: nil, didMigrate: { new, old, _ in
                try old.enumerate(FetchDescriptor<EmployeesV1.Employee>(), batchSize: 16) { oldEmployee in
                    guard let source = oldEmployee.managedObject, try source.hasValue("photo") else { return }
                    let name = oldEmployee.name
                    guard let employee = try new.fetch(FetchDescriptor<EmployeesV2.Employee>(predicate: #Predicate { $0.name == name })).first else {
                        throw StrataError(.migrationFailed, "no v2 employee named \(name)")
                    }
                    let photo = EmployeesV2.Photo()
                    new.insert(photo)
                    try photo.managedObject?.takeValue(forKey: "photo", from: source)
                    employee.profile = photo
                }
                try new.save()
            }),
        ]
    }
}

@Suite struct TypedEmployeesPhotoSplitTests {
    static let count = 30

    static func photo(_ i: Int) -> Data { Data(LogFixtures.noise(12_000, seed: UInt64(i))) }

    static func makeV1(_ url: URL) throws {
        let container = try ModelContainer(for: EmployeesV1.Employee.self, EmployeesV1.Department.self,
                                           configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let sales = EmployeesV1.Department(name: "Sales")
        context.insert(sales)
        for i in 0..<count {
            let employee = EmployeesV1.Employee(name: "Employee \(i)")
            employee.salary = Double(1000 * i)
            if i % 3 != 0 { employee.photo = photo(i) }
            employee.department = sales
            context.insert(employee)
        }
        try context.save()
        // The list screen: names only, no photo bytes.
        let reader = ModelContext(container)
        container.store.resetStatistics()
        let names = try reader.fetch(FetchDescriptor<EmployeesV1.Employee>(sortBy: [SortDescriptor(\.salary)])).map(\.name)
        #expect(names.count == count)
        #expect(container.store.statistics.blobBytesRead == 0, "listing names reads no photo bytes")
        try container.close()
    }

    /// The typed twins are scenario 1's models (`EmployeesScenario`): they store the
    /// same entities, properties and relationships. They index `name` besides, so that
    /// an index is carried across the custom stage; that flag alone may differ.
    @Test func typedModelsAreTheScenarioModels() throws {
        func shape(_ canonicalDescription: String) -> String {
            canonicalDescription.replacingOccurrences(of: "indexed=1", with: "indexed=0")
        }
        let pairs = [(try EmployeesV1.schema().objectModel, try EmployeesScenario.v1()), (try EmployeesV2.schema().objectModel, try EmployeesScenario.v2())]
        for (typed, scenario) in pairs {
            #expect(shape(typed.canonicalDescription) == shape(scenario.canonicalDescription))
        }
    }

    @Test func photosMoveToTheirOwnModel() throws {
        let dir = try TemporaryDirectory("typed-photosplit")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        try Self.makeV1(url)

        let container = try ModelContainer(for: EmployeesV2.Employee.self, EmployeesV2.Department.self, EmployeesV2.Photo.self,
                                           migrationPlan: EmployeesPlan.self, configurations: ModelConfiguration(url: url))
        defer { try? container.close() }
        let context = ModelContext(container)
        container.store.resetStatistics()
        let all = try context.fetch(FetchDescriptor<EmployeesV2.Employee>(sortBy: [SortDescriptor(\.salary)]))
        #expect(all.count == Self.count)
        _ = all.map(\.name)
        #expect(container.store.statistics.blobBytesRead == 0, "the list screen still reads no blob bytes")
        #expect(try context.fetchCount(FetchDescriptor<EmployeesV2.Photo>()) == Self.count - Self.count / 3)
        for (i, employee) in all.enumerated() {
            #expect(employee.salary == Double(1000 * i))
            #expect(employee.department?.name == "Sales")
            if i % 3 == 0 {
                #expect(employee.profile == nil)
            } else {
                let profile = try #require(employee.profile)
                #expect(profile.photo == Self.photo(i))
                #expect(profile.employee === employee)
            }
        }
        #expect(all.first?.department?.employees.count == Self.count)
        #expect(try container.store.verify().isSound)
    }
}
