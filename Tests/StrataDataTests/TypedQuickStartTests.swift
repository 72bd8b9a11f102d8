import Foundation
import StrataData
import StrataTestSupport
import Testing

/// The typed quick-start example (module StrataData) as a user writes it — scenario 1's
/// Department and Employee, an insert, a save and a fetch with a `#Predicate`, a sort
/// and a limit — run against a store on disk.
@Suite struct TypedQuickStartTests {
    @Test func theTypedQuickStartExampleCompilesAndRuns() throws {
        let dir = try TemporaryDirectory("typed-example")
        defer { dir.remove() }
        let storeURL = URL(fileURLWithPath: dir.appending("Employees.strata"))

        let container = try ModelContainer(for: Employee.self, Department.self,
                                           configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(container)
        let sales = Department(name: "Sales")
        context.insert(sales)
        let ada = Employee(name: "Ada", email: "ada@example.com"); ada.department = sales
        context.insert(ada)
        try context.save()

        var request = FetchDescriptor<Employee>(predicate: #Predicate { $0.salary >= 100 && $0.department?.name == "Sales" },
                                                sortBy: [SortDescriptor(\.name)])
        request.fetchLimit = 20
        for employee in try context.fetch(request) { print(employee.name) }   // faults: photo bytes not read

        // What the example promises, checked: Ada (salary 0) is not selected; one who
        // earns enough is, and listing names reads no photo bytes.
        #expect(try context.fetch(request).isEmpty)
        let grace = Employee(name: "Grace", email: "grace@example.com")
        grace.salary = 150
        grace.photo = Data(repeating: 7, count: 64 << 10)
        grace.department = sales
        context.insert(grace)
        try context.save()

        let reader = ModelContext(container)
        container.store.resetStatistics()
        let names = try reader.fetch(request).map(\.name)
        #expect(names == ["Grace"])
        #expect(container.store.statistics.blobBytesRead == 0)
        #expect(sales.employees.count == 2)
        #expect(ada.department === sales)
    }
}
