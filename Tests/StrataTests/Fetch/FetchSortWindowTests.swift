import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Fetch: sorting, offset, limit, counts and ids")
struct FetchSortWindowTests {
    static func names(_ store: ObjectStore, _ configure: (inout FetchRequest) throws -> Void) throws -> [String] {
        var request = FetchRequest(entityName: "Employee")
        try configure(&request)
        return try FetchFixtures.firstNames(store.newContext().fetch(request))
    }

    @Test("multi-key sorts, ascending and descending", arguments: FetchFixtures.Kind.underTest)
    func multiKey(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            #expect(try Self.names(store) { $0.sortKeys = [.ascending("age"), .descending("salary")] } == ["Cid", "Dana", "Ann", "Bob", "Eve"])
            #expect(try Self.names(store) { $0.sortKeys = [.descending("age"), .ascending("name")] } == ["Eve", "Bob", "Ann", "Dana", "Cid"])
            #expect(try Self.names(store) { $0.sortKeys = [.ascending("city", options: [.caseInsensitive, .diacriticInsensitive]), .descending("name")] }
                    == ["Eve", "Bob", "Dana", "Cid", "Ann"])
            #expect(try Self.names(store) { $0.sortKeys = [.ascending("department.name"), .ascending("age")] }.last == "Dana")
        }
    }

    @Test("equal keys keep key (insertion) order: the sort is stable", arguments: FetchFixtures.Kind.underTest)
    func stable(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            let context = store.newContext()
            // Inserted in an order that is not name order; three share each salary.
            let names = (0..<30).map { "n\(($0 * 7) % 30)" }
            for (i, name) in names.enumerated() {
                let e = try context.insert("Employee")
                try e.setValue(name, forKey: "name")
                try e.setValue(i % 20, forKey: "age")
                try e.setValue(Double(i % 3), forKey: "salary")
            }
            try context.save()
            var request = FetchRequest(entityName: "Employee")
            request.sortKeys = [.ascending("salary")]
            let sorted = try store.newContext().fetch(request).map { try $0.string("name") ?? "" }
            let expected = (0..<3).flatMap { s in names.enumerated().filter { $0.offset % 3 == s }.map(\.element) }
            #expect(sorted == expected)
            request.sortKeys = [.descending("salary")]
            let descending = try store.newContext().fetch(request).map { try $0.string("name") ?? "" }
            #expect(descending == (0..<3).reversed().flatMap { s in names.enumerated().filter { $0.offset % 3 == s }.map(\.element) })
        }
    }

    /// A top-k keeps matches with their first sort value only until another's ties with
    /// it (`FetchRowCollector.completesLater`): first values drawn from few or many
    /// distinct ones, limits below, at and above the partial-row limit, two and three
    /// keys, with and without an offset, all give what sorting every object gives.
    @Test("a top-k sorted by several keys orders ties on the first as a full sort does", arguments: FetchFixtures.Kind.underTest)
    func topKWithTiesOnTheFirstKey(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            let seed: UInt64 = 41
            var r = SeededRandom(seed: seed)
            let context = store.newContext()
            var rows: [(name: String, age: Int64, salary: Double, key: Int)] = []
            for i in 0..<400 {
                let e = try context.insert("Employee")
                let name = "e\(r.int(in: 0...60))-\(i)", age = Int64(r.int(in: 0...(i < 200 ? 5 : 300))), salary = Double(r.int(in: 0...3))
                try e.setValue(name, forKey: "name")
                try e.setValue(Int(age), forKey: "age")
                try e.setValue(salary, forKey: "salary")
                rows.append((name, age, salary, i))
            }
            try context.save()
            for limit in [1, 7, 20, FetchRowCollector.partialRowLimit, FetchRowCollector.partialRowLimit + 1, 200] {
                for (ageAscending, third) in [(true, false), (false, false), (false, true)] {
                    for offset in [0, 3] {
                        var request = FetchRequest(entityName: "Employee")
                        request.sortKeys = [SortKey("age", ascending: ageAscending), .descending("name")] + (third ? [.ascending("salary")] : [])
                        request.fetchLimit = limit
                        request.fetchOffset = offset
                        let found = try store.newContext().fetch(request).map { try $0.string("name") ?? "" }
                        let expected = rows.sorted { a, b in
                            if a.age != b.age { return ageAscending ? a.age < b.age : a.age > b.age }
                            if a.name != b.name { return a.name > b.name }
                            return a.key < b.key
                        }.dropFirst(offset).prefix(limit).map(\.name)
                        #expect(found == Array(expected), "seed \(seed), limit \(limit), age ascending \(ageAscending), offset \(offset)")
                    }
                }
            }
        }
    }

    @Test("offset and limit window the sorted result; count(for:) and ids agree", arguments: FetchFixtures.Kind.underTest)
    func window(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            var request = FetchRequest(entityName: "Employee")
            request.sortKeys = [.descending("salary")]
            request.fetchOffset = 1
            request.fetchLimit = 2
            #expect(try FetchFixtures.firstNames(context.fetch(request)) == ["Cid", "Dana"])
            #expect(try context.count(for: request) == 2)
            #expect(try context.fetchObjectIDs(request) == context.fetch(request).map(\.objectID))

            request.sortKeys = []
            #expect(try FetchFixtures.firstNames(context.fetch(request)) == ["Bob", "Cid"])
            request.predicate = try Strata.Predicate(format: "salary > 1000")
            #expect(try FetchFixtures.firstNames(context.fetch(request)) == ["Cid", "Dana"])
            #expect(try context.count(for: request) == 2)
            request.fetchOffset = 10
            #expect(try context.fetch(request).isEmpty)
            #expect(try context.count(for: request) == 0)
            request.fetchOffset = 0
            request.fetchLimit = 0
            #expect(try context.fetch(request).isEmpty) // a limit of 0 is zero results; nil is no limit
            request.fetchLimit = nil
            #expect(try context.count(for: request) == 4)
        }
    }

    @Test("count(for:) and fetchObjectIDs without a predicate read no record", arguments: FetchFixtures.Kind.underTest)
    func countReadsNothing(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            store.resetStatistics()
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 5)
            let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Employee"))
            #expect(ids.count == 5)
            #expect(ids.map(\.entityName) == ["Employee", "Employee", "Employee", "Employee", "Manager"])
            #expect(store.statistics.recordsDecoded == 0)
            // ids are sendable and come back as the same objects
            #expect(try context.object(with: ids[0]).string("name") == "Ann Lee")
        }
    }

    @Test("a fetch returns faults that fire in batches", arguments: FetchFixtures.Kind.underTest)
    func faults(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            store.resetStatistics()
            let employees = try context.fetch(FetchRequest(entityName: "Employee"))
            #expect(employees.allSatisfy { $0.isFault })
            #expect(store.statistics.recordsDecoded == 0)
            _ = try employees[0].string("name")
            #expect(employees.allSatisfy { !$0.isFault }) // one batch fired them all
        }
    }

    @Test("includesSubentities", arguments: FetchFixtures.Kind.underTest)
    func subentities(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            var request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "salary > 2000"))
            #expect(try FetchFixtures.firstNames(context.fetch(request)) == ["Cid", "Dana", "Eve"])
            request.includesSubentities = false
            #expect(try FetchFixtures.firstNames(context.fetch(request)) == ["Cid", "Dana"])
            #expect(try context.count(for: request) == 2)
            request.predicate = nil
            #expect(try context.count(for: request) == 4)
            #expect(try FetchFixtures.firstNames(context.fetch(FetchRequest(entityName: "Manager"))) == ["Eve"])
            // A sub-entity's own attribute in a predicate on the sub-entity
            let managers = FetchRequest(entityName: "Manager", predicate: try Strata.Predicate(format: "reports == 0 AND age > 50"))
            #expect(try context.count(for: managers) == 1)
        }
    }
}
