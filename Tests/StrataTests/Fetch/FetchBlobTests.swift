import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Fetch: faults read no blob bytes")
struct FetchBlobTests {
    /// A fetch returns faults; reading only `name` on 100,000 employees with
    /// photos (20,000 on PostgreSQL, a round trip a photo) reads zero blob bytes. The
    /// photos are tiny, but the threshold is lower still, so every one of them is in
    /// the blob area.
    @Test("reading names of employees with photos reads zero blob bytes")
    func hundredThousandNames() throws {
        var options = StoreOptions()
        options.externalStorageThreshold = 8
        let count = StoreUnderTest.isPostgres ? 20_000 : 100_000
        try FetchFixtures.withStore(.inMemory, options: options) { store in
            let rows: [[String: Value]] = (0..<count).map { i in
                ["name": .string("E\(i)"), "age": .int(Int64(i % 90)), "photo": .binary(Data(repeating: UInt8(i & 0xFF), count: 16))]
            }
            try store.batchInsert(entityName: "Employee", objects: rows)
            #expect(store.statistics.blobsWritten == count)

            store.resetStatistics()
            let context = store.newContext()
            let employees = try context.fetch(FetchRequest(entityName: "Employee"))
            #expect(employees.count == count)
            var characters = 0
            for employee in employees { characters += try employee.string("name")?.count ?? 0 }
            #expect(characters > count)
            #expect(store.statistics.blobBytesRead == 0)
            #expect(store.statistics.blobsRead == 0)
            #expect(store.statistics.recordsDecoded == count)

            // The photo is read when, and only when, it is asked for.
            #expect(try employees[12_345].data("photo") == Data(repeating: UInt8(12_345 & 0xFF), count: 16))
            #expect(store.statistics.blobsRead == 1)
            #expect(store.statistics.blobBytesRead >= 16)
        }
    }

    @Test("a predicate on other attributes reads no blob either", arguments: FetchFixtures.Kind.underTest)
    func predicateReadsNoBlob(kind: FetchFixtures.Kind) throws {
        var options = StoreOptions()
        options.externalStorageThreshold = 8
        try FetchFixtures.withStore(kind, options: options) { store in
            let rows: [[String: Value]] = (0..<500).map { ["name": .string("E\($0)"), "age": .int(1), "salary": .double(Double($0)), "photo": .binary(Data(count: 64))] }
            try store.batchInsert(entityName: "Employee", objects: rows)
            store.resetStatistics()
            var request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "salary >= 250 AND name ENDSWITH '7'"))
            request.sortKeys = [.descending("salary")]
            let found = try store.newContext().fetch(request)
            #expect(found.count == 25)
            #expect(try found.first?.string("name") == "E497")
            #expect(store.statistics.blobBytesRead == 0)
        }
    }
}
