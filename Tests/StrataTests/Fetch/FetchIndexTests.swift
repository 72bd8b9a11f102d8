import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Fetch: indexed attributes are served from the index")
struct FetchIndexTests {
    /// 2,000 employees, ages 0..<100 (20 each), in one save.
    static func populate(_ store: ObjectStore) throws {
        let context = store.newContext()
        for i in 0..<2_000 {
            let e = try context.insert("Employee")
            try e.setValue("E\(i)", forKey: "name")
            try e.setValue(i % 100, forKey: "age")
            try e.setValue(Double(i), forKey: "salary")
        }
        try context.save()
    }

    @Test("equality, IN and ranges decode only the matching records", arguments: FetchFixtures.Kind.underTest)
    func decodesOnlyMatches(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try Self.populate(store)
            let cases: [(String, Int)] = [
                ("age == 42", 20), ("age == 42.0", 20), ("age IN {1, 2, 3}", 60),
                ("age >= 10 AND age < 15", 100), ("age BETWEEN {95, 99}", 100), ("age > 97", 40),
                ("age == 42 AND salary > 1000", 10), // the index narrows, the predicate finishes
            ]
            for (format, expected) in cases {
                let context = store.newContext()
                store.resetStatistics()
                let request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: format))
                let found = try context.fetch(request)
                #expect(found.count == expected, "\(format)")
                let bound = format.contains("salary") ? 20 : expected
                #expect(store.statistics.recordsDecoded == bound, "\(format): \(store.statistics)")
                // Reading the matches reads nothing more: the fetch kept their records.
                for e in found { _ = try e.string("name") }
                #expect(store.statistics.recordsDecoded == bound, "\(format)")
            }
            // An attribute without an index is a scan of every record.
            store.resetStatistics()
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "salary == 42"))) == 1)
            #expect(store.statistics.recordsDecoded == 2_000)
        }
    }

    @Test("the index follows updates and deletes")
    func followsChanges() throws {
        try FetchFixtures.withStore(.onDisk) { store in
            try Self.populate(store)
            let context = store.newContext()
            let forty = try context.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 40")))
            try forty[0].setValue(1000, forKey: "age")
            try context.delete(forty[1])
            try context.save()
            let fresh = store.newContext()
            #expect(try fresh.count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 40"))) == 18)
            #expect(try fresh.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 1000"))).map(\.objectID) == [forty[0].objectID])
        }
    }

    @Test("unique attributes reject duplicates at save")
    func unique() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let copy = try context.insert("Employee")
            try copy.setValue("Ann Again", forKey: "name")
            try copy.setValue(1, forKey: "age")
            try copy.setValue("ann@example.com", forKey: "email")
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validationFailed)
            #expect(error?.message.contains("email") == true)
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == 5)
        }
    }
}
