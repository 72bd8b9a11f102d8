import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Scenario 1, v1: a screen lists employee names only. Listing reads zero blob bytes;
/// a photo is read only when that attribute itself is.
@Suite struct EmployeesPhotoListTests {
    static func model() throws -> ObjectModel { try ObjectModel(contentsOf: FixturePaths.model("Employees-v1.json")) }

    static func populate(_ store: ObjectStore, employees: Int, photoBytes: Int) throws {
        let context = store.newContext()
        var departments: [ManagedObject] = []
        for name in ["Sales", "Engineering", "Support"] {
            let department = try context.insert("Department")
            try department.setValue(name, forKey: "name")
            departments.append(department)
        }
        for i in 0..<employees {
            let employee = try context.insert("Employee")
            try employee.setValue("Employee \(i)", forKey: "name")
            try employee.setValue(Double(40_000 + i), forKey: "salary")
            try employee.setValue(Data(LogFixtures.noise(photoBytes, seed: UInt64(i))), forKey: "photo")
            try employee.setObject(departments[i % 3], forKey: "department")
        }
        try context.save()
    }

    @Test func listingNamesReadsNoBlobBytes() throws {
        let dir = try TemporaryDirectory("photolist")
        defer { dir.remove() }
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
            try Self.populate(store, employees: 300, photoBytes: 20_000)
            try store.close()
        }
        let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
        defer { try? store.close() }
        store.resetStatistics()
        let context = store.newContext()
        var request = FetchRequest(entityName: "Employee")
        request.sortKeys = [.ascending("salary")]
        let employees = try context.fetch(request)
        #expect(employees.count == 300)
        var names: [String] = []
        for employee in employees { names.append(try employee.string("name") ?? "") }
        #expect(names.first == "Employee 0")
        #expect(store.statistics.blobBytesRead == 0)
        #expect(store.statistics.recordsDecoded >= 300)

        let photo = try employees[7].data("photo")
        #expect(photo == Data(LogFixtures.noise(20_000, seed: 7)))
        #expect(store.statistics.blobBytesRead >= 20_000)
        #expect(store.statistics.blobsRead == 1)
    }

    @Test func departmentsDeriveTheirEmployeesAndCascade() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        try Self.populate(store, employees: 30, photoBytes: 100)
        let context = store.newContext()
        var request = FetchRequest(entityName: "Department")
        request.predicate = try Predicate(format: "name == 'Sales'")
        let sales = try #require(try context.fetch(request).first)
        #expect(try sales.count("employees") == 10)
        let first = try #require(try sales.objects("employees").first)
        #expect(try first.object("department") == sales)

        var byDepartment = FetchRequest(entityName: "Employee")
        byDepartment.predicate = try Predicate(format: "department.name == 'Sales' AND salary >= 40010")
        #expect(try context.count(for: byDepartment) == 6) // Sales is i % 3 == 0; salary ≥ 40010 leaves 12, 15 … 27

        try context.delete(sales)
        #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 20)
        try context.save()
        let fresh = store.newContext()
        #expect(try fresh.count(for: FetchRequest(entityName: "Employee")) == 20)
        #expect(try fresh.count(for: FetchRequest(entityName: "Department")) == 2)
    }

    @Test func openingWithAnotherModelIsTheIncompatibleModelError() throws {
        let dir = try TemporaryDirectory("incompatible")
        defer { dir.remove() }
        let v1 = try Self.model()
        try StoreUnderTest.open(at: dir.path, model: v1).close()
        let v2 = try ObjectModel(contentsOf: FixturePaths.model("Employees-v2.json"))
        let error = #expect(throws: StrataError.self) { _ = try StoreUnderTest.open(at: dir.path, model: v2) }
        #expect(error?.code == .incompatibleModel)
        #expect(error?.message.contains("the model used to open the store is incompatible with the one used to create the store") == true)
        #expect(error?.context["storeHash"] == v1.versionHash)
        #expect(error?.context["modelHash"] == v2.versionHash)
        // Nothing was changed: v1 still opens.
        try StoreUnderTest.open(at: dir.path, model: v1).close()
    }
}
