import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataScenarios

/// Scenario 1, v1 → v2 (`EmployeesScenario`): the photo moves into its own entity
/// through a custom entity migration policy that calls `super` and adds to it. The
/// bytes are carried by reference: the migration writes no blob bytes, and the list
/// screen still reads none.
@Suite struct EmployeesPhotoSplitMigrationTests {
    static let v1URL = FixturePaths.model("Employees-v1.json")
    static let v2URL = FixturePaths.model("Employees-v2.json")

    /// The bytes the store's blobs take: its blob files, or on PostgreSQL its blobs table.
    static func blobBytesOnDisk(_ path: String) throws -> Int {
        if let bytes = try StoreUnderTest.serverBlobBytes(at: path) { return bytes }
        return try FileManager.default.contentsOfDirectory(atPath: path + "/blobs").reduce(0) { $0 + (try FileBytes.size(path + "/blobs/" + $1)) }
    }

    @Test(arguments: [7, 1000]) // batch sizes: many batches, and all in one
    func photosMoveToTheirOwnEntityByReference(batchSize: Int) throws {
        let dir = try TemporaryDirectory("photosplit")
        defer { dir.remove() }
        let v1 = try ObjectModel(contentsOf: Self.v1URL)
        let v2 = try ObjectModel(contentsOf: Self.v2URL)
        let employees = 60
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: v1)
            let context = store.newContext()
            let sales = try context.insert("Department")
            try sales.setValue("Sales", forKey: "name")
            for i in 0..<employees {
                let employee = try context.insert("Employee")
                try employee.setValue("Employee \(i)", forKey: "name")
                try employee.setValue(Double(1000 * i), forKey: "salary")
                if i % 3 != 0 { try employee.setValue(Data(LogFixtures.noise(12_000, seed: UInt64(i))), forKey: "photo") }
                try employee.setObject(sales, forKey: "department")
            }
            try context.save()
            try store.close()
        }
        let blobBytesBefore = try Self.blobBytesOnDisk(dir.path)

        var options = StoreOptions()
        options.migration = .mappings([try EmployeesScenario.photoSplit(from: v1, to: v2)], models: [v2])
        options.migrationBatchSize = batchSize
        let progress = ProgressLog()
        options.migrationProgress = { progress.append($0) }
        let store = try StoreUnderTest.open(at: dir.path, model: v2, options: options)
        defer { try? store.close() }

        #expect(try Self.blobBytesOnDisk(dir.path) == blobBytesBefore, "the migration copied no blob bytes")
        // Structural memory bound: a batch of sources, what they became (an employee
        // and a photo each), and the department they reference.
        let largest = progress.entries.map(\.largestBatch).max() ?? .max
        #expect(largest <= 3 * batchSize + 3, "memory followed the batch size (largest \(largest))")
        #expect(progress.entries.contains { $0.pass == .createInstances && $0.done == employees })

        let context = store.newContext()
        store.resetStatistics()
        let all = try context.fetch(FetchRequest(entityName: "Employee", sortKeys: [.ascending("salary")]))
        #expect(all.count == employees)
        for employee in all { _ = try employee.string("name") }
        #expect(store.statistics.blobBytesRead == 0, "the list screen reads no blob bytes")

        #expect(try context.count(for: FetchRequest(entityName: "Photo")) == employees - employees / 3)
        for (i, employee) in all.enumerated() {
            #expect(try employee.double("salary") == Double(1000 * i))
            #expect(try employee.object("department")?.string("name") == "Sales")
            if i % 3 == 0 {
                #expect(try employee.object("profile") == nil)
            } else {
                let profile = try #require(try employee.object("profile"))
                #expect(try profile.data("photo") == Data(LogFixtures.noise(12_000, seed: UInt64(i))))
                #expect(try profile.object("employee") == employee)
            }
        }
        let sales = try #require(try context.fetch(FetchRequest(entityName: "Department")).first)
        #expect(try sales.count("employees") == employees)
        #expect(try store.verify().isSound)
    }

    @Test func aFailingPolicyLeavesTheStoreAsItWas() throws {
        final class FailingPolicy: EntityMigrationPolicy, @unchecked Sendable {
            override func createDestinationInstances(forSource source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
                try super.createDestinationInstances(forSource: source, mapping: mapping, manager: manager)
                if try source.string("name") == "Employee 5" { throw StrataError(.migrationFailed, "policy refuses Employee 5") }
            }
        }
        let dir = try TemporaryDirectory("photosplit-fail")
        defer { dir.remove() }
        let v1 = try ObjectModel(contentsOf: Self.v1URL)
        let v2 = try ObjectModel(contentsOf: Self.v2URL)
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: v1)
            let context = store.newContext()
            for i in 0..<10 {
                let employee = try context.insert("Employee")
                try employee.setValue("Employee \(i)", forKey: "name")
            }
            try context.save()
            try store.close()
        }
        let before = try DirectorySnapshot(dir.path)
        let digestBefore = try StoreUnderTest.serverDigest(at: dir.path)
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        let index = try #require(mapping.entityMappings.firstIndex { $0.destinationEntityName == "Employee" })
        mapping.entityMappings[index].policyFactory = { FailingPolicy() }
        var options = StoreOptions()
        options.migration = .mappings([mapping], models: [v2])
        options.migrationBatchSize = 3
        let error = #expect(throws: StrataError.self) { _ = try StoreUnderTest.open(at: dir.path, model: v2, options: options) }
        #expect(error?.message.contains("Employee 5") == true)
        #expect(try DirectorySnapshot(dir.path) == before, "byte for byte as it was")
        #expect(try StoreUnderTest.serverDigest(at: dir.path) == digestBefore, "the store on the server as it was")
        let store = try StoreUnderTest.open(at: dir.path, model: v1)
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == 10)
        try store.close()
    }
}

/// Collects progress reports from the migration's callback.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [MigrationProgress] = []
    func append(_ entry: MigrationProgress) { lock.withLock { stored.append(entry) } }
    var entries: [MigrationProgress] { lock.withLock { stored } }
    /// The passes reported, in order.
    var passes: [MigrationProgress.Pass] { entries.map(\.pass) }
}
