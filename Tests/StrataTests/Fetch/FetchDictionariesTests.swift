import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Fetch: dictionary results (no managed objects)")
struct FetchDictionariesTests {
    @Test("the named values of the matches, in order, window and limit; no object made", arguments: FetchFixtures.Kind.underTest)
    func namedValues(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            var request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "salary > 1000"))
            request.sortKeys = [.descending("salary")]
            request.propertiesToFetch = ["name", "salary", "department", "nickname"]
            request.fetchOffset = 1
            request.fetchLimit = 2
            let rows = try context.fetchDictionaries(request)
            #expect(context.objectsMade == 0)   // for the matches or the candidates
            #expect(rows.map { $0["name"] } == [.string("Cid Vega"), .string("Dana Kim")])
            #expect(rows.map { $0["salary"] } == [.double(3000), .double(2500)])
            #expect(rows[0]["nickname"] == .null)              // asked for and unset: there, null
            #expect(rows[1]["nickname"] == .string("D"))
            #expect(rows[0]["city"] == nil)                    // not asked for
            #expect(rows.allSatisfy { Set($0.values.keys) == ["name", "salary", "nickname"] })
            let sales = try #require(rows[0].destination("department"))
            #expect(rows[1].destination("department") == sales)
            #expect(try context.existingObject(with: sales).string("name") == "Sales")
            // The ids are those an object fetch gives.
            var objects = request
            objects.propertiesToFetch = nil
            #expect(rows.map(\.objectID) == (try store.newContext().fetchObjectIDs(objects)))
        }
    }

    @Test("counts and id lists make no managed object either", arguments: ["salary > 1000 AND age < 50", "city BEGINSWITH 'Z' OR nickname != nil", "age == 30"])
    func countsAndIDs(format: String) throws {
        try FetchFixtures.withStore(.onDisk) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            var request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: format))
            request.sortKeys = [.ascending("name")]
            let count = try context.count(for: request)
            let ids = try context.fetchObjectIDs(request)
            #expect(context.objectsMade == 0)
            #expect(count == ids.count && count > 0)
            #expect(ids == (try store.newContext().fetch(request)).map(\.objectID))
        }
    }

    @Test("without propertiesToFetch: every stored attribute and to-one; sub-entities by their own layout")
    func everyProperty() throws {
        try FetchFixtures.withStore(.onDisk) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let rows = try context.fetchDictionaries(FetchRequest(entityName: "Employee", sortKeys: [.ascending("name")]))
            #expect(rows.count == 5)
            let stored = ["name", "age", "salary", "city", "nickname", "email", "active", "hired", "photo"]
            #expect(rows.allSatisfy { Set($0.values.keys) == Set(stored) })   // `mood` is transient, `reports` Manager's own
            let eve = try #require(rows.last)
            #expect(eve.objectID.entityName == "Manager")
            #expect(eve["age"] == .int(51))
            #expect(eve.destinations.isEmpty)                 // no department: absent, as in Core Data
            #expect(rows[0]["hired"] == .date(FetchFixtures.hired))
            #expect(rows[1]["active"] == .bool(false))

            var managers = FetchRequest(entityName: "Manager")
            managers.propertiesToFetch = ["reports", "name"]
            #expect(try context.fetchDictionaries(managers).map { [$0["name"], $0["reports"]] } == [[.string("Eve Moss"), .int(0)]])
        }
    }

    @Test("an external binary is read only when asked for")
    func externalBinary() throws {
        try FetchFixtures.withStore(.onDisk, options: { var o = StoreOptions(); o.externalStorageThreshold = 16; return o }()) { store in
            try FetchFixtures.populate(store)
            let photo = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let context = store.newContext()
            var ann = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "name BEGINSWITH 'Ann'"))
            try #require(try context.fetch(ann).first).setValue(.binary(photo), forKey: "photo")
            try context.save()

            store.resetStatistics()
            ann.propertiesToFetch = ["name"]
            #expect(try store.newContext().fetchDictionaries(ann).map { $0["name"] } == [.string("Ann Lee")])
            #expect(store.statistics.blobBytesRead == 0)
            ann.propertiesToFetch = ["photo"]
            #expect(try store.newContext().fetchDictionaries(ann).map { $0["photo"] } == [.binary(photo)])
            #expect(store.statistics.blobBytesRead > 0)
        }
    }

    @Test("the store's values, not the context's unsaved changes")
    func storeOnly() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let bob = try #require(try context.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 45"))).first)
            try bob.setValue(99_999.0, forKey: "salary")
            let extra = try context.insert("Employee")
            try extra.setValue("Zed", forKey: "name")
            try extra.setValue(60, forKey: "age")
            try extra.setValue(99_999.0, forKey: "salary")
            var request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "salary >= 900"))
            request.sortKeys = [.ascending("salary")]
            request.propertiesToFetch = ["salary"]
            #expect(try context.fetchDictionaries(request).map { $0["salary"] } == [.double(900), .double(1500.5), .double(2500), .double(3000), .double(5000)])
            try context.save()
            #expect(try context.fetchDictionaries(request).map { $0["salary"] } == [.double(1500.5), .double(2500), .double(3000), .double(5000), .double(99_999), .double(99_999)])
        }
    }

    @Test("a misspelt, transient or to-many property is an error naming entity and key")
    func errors() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            func failure(_ properties: [String], entity: String = "Employee") -> StrataError? {
                var request = FetchRequest(entityName: entity)
                request.propertiesToFetch = properties
                do {
                    _ = try context.fetchDictionaries(request)
                    return nil
                } catch {
                    return error as? StrataError
                }
            }
            let misspelt = try #require(failure(["name", "nmae"]))
            #expect(misspelt.code == .unknownKeyPath)
            #expect(misspelt.context["entity"] == "Employee" && misspelt.context["keyPath"] == "nmae")
            let transient = try #require(failure(["mood"]))
            #expect(transient.code == .invalidArgument && transient.context["keyPath"] == "mood")
            let toMany = try #require(failure(["employees"], entity: "Department"))
            #expect(toMany.code == .invalidArgument && toMany.context["keyPath"] == "employees")
            #expect(failure(["name"], entity: "Employe")?.code == .unknownKeyPath)
            var badPredicate = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "agee == 25"))
            badPredicate.propertiesToFetch = ["name"]
            #expect(throws: StrataError.self) { try context.fetchDictionaries(badPredicate) }
        }
    }

    @Test("random requests give what the objects give")
    func matchesObjects() throws {
        try FetchFixtures.withStore(.onDisk) { store in
            try FetchFixtures.populate(store)
            var random = SeededRandom(seed: 0xD1C7)
            let predicates = ["salary > 1000", "age == 30", "city BEGINSWITH 'Z'", "department.name == 'Sales'", "active == NO OR age > 40", "nickname != nil"]
            let sorts: [[SortKey]] = [[], [.ascending("name")], [.descending("age"), .ascending("salary")], [.ascending("city")]]
            for _ in 0..<60 {
                var request = FetchRequest(entityName: random.chance(50) ? "Employee" : "Manager")
                if random.chance(50) { request.predicate = try Strata.Predicate(format: predicates[random.int(in: 0...predicates.count - 1)]) }
                request.sortKeys = sorts[random.int(in: 0...sorts.count - 1)]
                if random.chance(50) { request.fetchLimit = random.int(in: 0...3) }
                request.fetchOffset = random.int(in: 0...2)
                request.propertiesToFetch = ["name", "age", "city", "department"]
                let rows = try store.newContext().fetchDictionaries(request)
                let context = store.newContext()
                var objectRequest = request
                objectRequest.propertiesToFetch = nil
                let objects = try context.fetch(objectRequest)
                #expect(rows.map(\.objectID) == objects.map(\.objectID))
                for (row, object) in zip(rows, objects) {
                    #expect(row["name"] == (try object.value(forKey: "name")))
                    #expect(row["age"] == (try object.value(forKey: "age")))
                    #expect(row["city"] == (try object.value(forKey: "city")))
                    #expect(row.destination("department") == (try object.object("department"))?.objectID)
                }
            }
        }
    }
}
