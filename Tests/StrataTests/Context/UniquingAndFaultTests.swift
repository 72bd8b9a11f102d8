import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// One object per id per context; objects start as faults and a read decodes one record.
@Suite struct UniquingAndFaultTests {
    @Test func sameIDIsTheSameInstanceInOneContext() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee()
        let context = store.newContext()
        let a = try context.object(with: id)
        let b = try context.object(with: id)
        #expect(a === b)
        let fetched = try context.fetch(FetchRequest(entityName: "Employee"))
        #expect(fetched.count == 1 && fetched[0] === a)
        // Through a relationship too.
        let department = try ContextFixtures.department(context, "Sales")
        try a.setObject(department, forKey: "department")
        #expect(try department.objects("employees").first === a)
    }

    @Test func twoContextsHaveTwoInstances() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee()
        let one = store.newContext()
        let two = store.newContext()
        let a = try one.object(with: id)
        let b = try two.object(with: id)
        #expect(a !== b)
        #expect(a.objectID == b.objectID)
        try a.setValue("Changed", forKey: "name")
        #expect(try b.string("name") == "Ada") // unsaved changes stay in their context
    }

    @Test func anObjectIsAFaultUntilAnAttributeIsRead() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee()
        let context = store.newContext()
        store.resetStatistics()
        let employee = try context.object(with: id)
        #expect(employee.isFault)
        #expect(store.statistics.recordsDecoded == 0)
        #expect(try employee.string("name") == "Ada")
        #expect(!employee.isFault)
        #expect(store.statistics.recordsDecoded == 1)
        #expect(try employee.double("salary") == 1000)
        #expect(store.statistics.recordsDecoded == 1) // the record is decoded once
    }

    @Test func fetchReturnsFaultsAndAReadDecodesItsRecordOnly() throws {
        var options = StoreOptions()
        options.faultBatchSize = 1 // no batch faulting: one read is one record
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company(), options: options)
        let setup = store.newContext()
        for i in 0..<10 {
            let employee = try ContextFixtures.employee(setup, "E\(i)")
            try employee.setValue(Data(repeating: UInt8(i), count: 20_000), forKey: "photo")
        }
        try setup.save()

        let context = store.newContext()
        store.resetStatistics()
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        #expect(employees.count == 10)
        #expect(employees.allSatisfy { $0.isFault })
        #expect(store.statistics.recordsDecoded == 0) // no predicate: keys only
        #expect(try employees[3].string("name") == "E3")
        #expect(!employees[3].isFault && employees[4].isFault)
        #expect(store.statistics.recordsDecoded == 1)
        #expect(store.statistics.blobBytesRead == 0) // the photo is not read with the name
        #expect(try employees[3].data("photo")?.count == 20_000)
        #expect(store.statistics.blobsRead == 1)
    }

    @Test func batchFaultingLoadsFetchSiblingsTogether() throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let setup = store.newContext()
        for i in 0..<10 { _ = try ContextFixtures.employee(setup, "E\(i)") }
        try setup.save()
        let context = store.newContext()
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        store.resetStatistics()
        _ = try employees[0].string("name")
        #expect(employees.allSatisfy { !$0.isFault }) // within the default batch of 64
        for employee in employees { _ = try employee.string("name") }
        #expect(store.statistics.recordsDecoded == 10)
    }

    /// A plain fetch keeps where each record lay, and its faults read them there while
    /// no commit followed; after one, or after a compaction moved the records, they are
    /// looked up again: a fault never loads a version older than the store's.
    @Test(arguments: ["nothing", "an update", "a delete", "a compaction"])
    func faultsOfAPlainFetchLoadTheCurrentVersion(between: String) throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let setup = store.newContext()
        let made = try (0..<100).map { try ContextFixtures.employee(setup, "E\($0)", salary: Double($0)) }
        try setup.save()
        // Half of them written again: garbage for the compaction to collect.
        for employee in made.prefix(50) { try employee.setValue(.double(-1), forKey: "salary") }
        try setup.save()
        if let log = store.records as? LogStore { try log.sealActiveSegment() }
        let context = store.newContext()
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        #expect(employees.count == 100 && employees.allSatisfy { $0.isFault })
        var expected = (0..<100).map { "E\($0)" }
        let other = store.newContext()
        let others = try other.fetch(FetchRequest(entityName: "Employee"))
        switch between {
        case "an update":
            for i in [0, 63, 64, 99] {
                try others[i].setValue(.string("F\(i)"), forKey: "name")
                expected[i] = "F\(i)"
            }
            try other.save()
        case "a delete":
            try other.delete(others[5])
            try other.save()
        case "a compaction":
            // No commit: the records moved to a new segment and the old one retired
            // (on PostgreSQL, rows stay where they are and the tables are vacuumed).
            let report = try store.records.compact(force: true)
            #expect(StoreUnderTest.isPostgres || report.segmentsCompacted > 0)
        default:
            break
        }
        for (i, employee) in employees.enumerated() {
            if between == "a delete" && i == 5 {
                #expect(throws: StrataError.self) { _ = try employee.string("name") }
                continue
            }
            #expect(try employee.string("name") == expected[i], "\(between): employee \(i)")
        }
    }

    @Test func anObjectFromAnotherStoreIsRefused() throws {
        let (_, id) = try ContextFixtures.storeWithEmployee()
        let (other, _) = try ContextFixtures.storeWithEmployee()
        let error = #expect(throws: StrataError.self) { _ = try other.newContext().object(with: id) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func aMissingObjectIsObjectNotFound() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee()
        let context = store.newContext()
        try context.delete(try context.object(with: id))
        try context.save()
        let fresh = store.newContext()
        let error = #expect(throws: StrataError.self) { _ = try fresh.existingObject(with: id) }
        #expect(error?.code == .objectNotFound)
    }
}
