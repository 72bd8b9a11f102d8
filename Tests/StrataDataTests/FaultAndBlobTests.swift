import Foundation
import StrataData
import StrataTestSupport
import Testing

/// Faults and external storage through the typed API, proved with the store's counters.
@Suite struct FaultAndBlobTests {
    func makeStore(_ dir: TemporaryDirectory) throws -> ModelContainer {
        let url = URL(fileURLWithPath: dir.appending("store"))
        let container = try ModelContainer(for: Employee.self, Department.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        for i in 0..<20 {
            let employee = Employee(name: "E\(i)", email: "e\(i)@x")
            employee.photo = Data(repeating: UInt8(i), count: 32 << 10)
            context.insert(employee)
        }
        try context.save()
        return container
    }

    @Test func fetchedModelsAreFaultsAndPhotosLoadOnlyWhenRead() throws {
        let dir = try TemporaryDirectory("typed-faults")
        defer { dir.remove() }
        let container = try makeStore(dir)
        let context = ModelContext(container)
        container.store.resetStatistics()
        let employees = try context.fetch(FetchDescriptor<Employee>())
        #expect(employees.count == 20)
        #expect(employees.allSatisfy { $0.managedObject?.isFault == true }, "a fetch hands out faults")
        // Reading names fires the faults: records, no blob bytes.
        _ = employees.map(\.name)
        #expect(employees[0].managedObject?.isFault == false)
        #expect(container.store.statistics.blobBytesRead == 0)
        #expect(container.store.statistics.blobsRead == 0)
        // Reading one photo reads that one blob.
        let photo = try #require(employees[3].photo)
        #expect(photo == Data(repeating: 3, count: 32 << 10))
        #expect(container.store.statistics.blobsRead == 1)
        #expect(container.store.statistics.blobBytesRead > 0)
    }

    @Test func propertiesToFetchAndEnumerate() throws {
        let dir = try TemporaryDirectory("typed-enumerate")
        defer { dir.remove() }
        let container = try makeStore(dir)
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Employee>()
        descriptor.propertiesToFetch = [\.name]
        descriptor.relationshipKeyPathsForPrefetching = [\.department]
        container.store.resetStatistics()
        var seen: [String] = []
        try context.enumerate(descriptor, batchSize: 7) { seen.append($0.name) }
        #expect(seen.count == 20)
        #expect(container.store.statistics.blobBytesRead == 0)
        descriptor.fetchOffset = 5
        descriptor.fetchLimit = 3
        descriptor.sortBy = [SortDescriptor(\.name, order: .reverse)]
        #expect(try context.fetch(descriptor).map(\.name) == ["E4", "E3", "E2"], "E9, E8, E7, E6, E5 skipped")
        #expect(try context.fetchCount(FetchDescriptor<Employee>(predicate: #Predicate { $0.name.starts(with: "E1") })) == 11)
        let error = #expect(throws: StrataError.self) { try context.enumerate(descriptor, batchSize: 5) { _ in } }
        #expect(error?.code == .invalidArgument, "enumerate walks in store order and refuses to sort")
    }

    @Test func pendingChangesCountUnlessAskedNot() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        context.insert(Employee(name: "New", email: "new@x"))
        var descriptor = FetchDescriptor<Employee>()
        #expect(try context.fetchCount(descriptor) == 1)
        descriptor.includePendingChanges = false
        #expect(try context.fetchCount(descriptor) == 0)
    }
}
