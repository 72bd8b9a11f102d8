import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Batch insert")
struct BatchInsertTests {
    @Test("one transaction, defaults, external blobs, to-one links, a change set", arguments: FetchFixtures.Kind.underTest)
    func insert(kind: FetchFixtures.Kind) async throws {
        var options = StoreOptions()
        options.externalStorageThreshold = 100
        let (ids, stream, commits, blobs) = try FetchFixtures.withStore(kind, options: options) { store -> ([ObjectID], ChangeStream, Int, Int) in
            try FetchFixtures.populate(store)
            let sales = try #require(try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Department", predicate: try Strata.Predicate(format: "name == 'Sales'"))).first)
            let stream = store.changes()
            store.resetStatistics()
            let ids = try store.batchInsert(entityName: "Employee", objects: [
                ["name": .string("Gus"), "age": .int(40), "photo": .binary(Data(count: 500))],
                ["name": .string("Hal"), "age": .int(41), "photo": .binary(Data(count: 10)), "salary": .double(7)],
            ], relationships: [["department": sales], [:]])
            let commits = store.statistics.commits
            let blobs = store.statistics.blobsWritten

            let context = store.newContext()
            let gus = try context.existingObject(with: ids[0])
            #expect(try gus.double("salary") == 0)        // the default
            #expect(try gus.bool("active") == true)       // the default
            #expect(try gus.data("photo")?.count == 500)
            #expect(try gus.object("department")?.string("name") == "Sales")
            let hal = try context.existingObject(with: ids[1])
            #expect(try hal.double("salary") == 7)
            #expect(try hal.object("department") == nil)
            // The derived inverse lists Gus; fetches and the age index find them.
            let department = try context.object(with: sales)
            #expect(try FetchFixtures.firstNames(department.objects("employees")) == ["Cid", "Dana", "Gus"])
            #expect(try context.count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 41"))) == 1)
            // New ids continue after the batch: a context insert does not reuse them.
            let next = try context.insert("Employee")
            #expect(next.objectID.key > ids[1].key)
            return (ids, stream, commits, blobs)
        }
        // Closing the store ended the stream; what it buffered is still there.
        var changes: ChangeSet?
        for await change in stream { changes = change; break }
        #expect(commits == 1)
        #expect(blobs == 1) // only the photo at or above the threshold
        #expect(changes?.inserted == Set(ids))
        #expect(changes?.deleted.isEmpty == true)
    }

    @Test("bad input names entity, key and index, and writes nothing")
    func errors() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            let before = store.statistics.commits
            func failure(_ objects: [[String: Value]], _ relationships: [[String: ObjectID]] = [], entity: String = "Employee") -> StrataError? {
                #expect(throws: StrataError.self) { try store.batchInsert(entityName: entity, objects: objects, relationships: relationships) }
            }
            let ok: [String: Value] = ["name": .string("Ok"), "age": .int(1)]

            var error = failure([ok, ["name": .string("X"), "age": .string("old")]])
            #expect(error?.code == .typeMismatch)
            #expect(error?.context == ["entity": "Employee", "keyPath": "age", "index": "1"])

            error = failure([ok, ok, ["name": .string("X"), "age": .int(2), "agee": .int(3)]])
            #expect(error?.code == .unknownKeyPath)
            #expect(error?.context["keyPath"] == "agee")
            #expect(error?.context["index"] == "2")

            error = failure([["age": .int(2)]])
            #expect(error?.code == .validationFailed)
            #expect(error?.context["keyPath"] == "name")
            #expect(error?.message.contains("required") == true)

            // A duplicate is a uniquenessViolation, not validationFailed.
            error = failure([ok, ["name": .string("Dup"), "age": .int(2), "email": .string("ann@example.com")]])
            #expect(error?.code == .uniquenessViolation)
            #expect(error?.context["keyPath"] == "email")
            #expect(error?.context["properties"] == "email")
            #expect(error?.context["value"] == "\"ann@example.com\"")

            error = failure([["name": .string("A"), "age": .int(2), "email": .string("same@x")], ["name": .string("B"), "age": .int(2), "email": .string("same@x")]])
            #expect(error?.code == .uniquenessViolation)
            #expect(error?.context["index"] == "1")

            error = failure([["name": .string("X"), "age": .int(2), "mood": .string("happy")]])
            #expect(error?.code == .invalidArgument)
            #expect(error?.context["keyPath"] == "mood")

            let employee = try #require(try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee")).first)
            error = failure([ok], [["department": employee]])
            #expect(error?.code == .typeMismatch)
            #expect(error?.context["keyPath"] == "department")

            // A destination checked once is not checked again for the next objects of the
            // batch; a bad one after it is still caught, with its own index.
            let department = try #require(try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Department")).first)
            let forged = ObjectID(entityName: "Department", key: employee.key, storeIdentifier: employee.storeIdentifier)
            error = failure([ok, ok, ok], [["department": department], ["department": department], ["department": forged]])
            #expect(error?.code == .typeMismatch, "an id whose key is of another entity")
            #expect(error?.context["index"] == "2")
            let elsewhere = ObjectID(entityName: "Department", key: department.key, storeIdentifier: "another-store")
            error = failure([ok, ok], [["department": department], ["department": elsewhere]])
            #expect(error?.code == .invalidArgument)
            #expect(error?.context["index"] == "1")
            let missing = ObjectID(entityName: "Department", key: RecordKey(department.key.rawValue + 1_000), storeIdentifier: department.storeIdentifier)
            error = failure([ok, ok], [["department": department], ["department": missing]])
            #expect(error?.message.contains("not in the store") == true)

            error = failure([["name": .string("D")]], [["employees": employee]], entity: "Department")
            #expect(error?.code == .invalidArgument) // to-many: set the to-one side
            #expect(error?.context["keyPath"] == "employees")

            error = failure([ok], [[:], [:]])
            #expect(error?.code == .invalidArgument)

            error = failure([ok], entity: "Nobody")
            #expect(error?.code == .unknownKeyPath)

            #expect(store.statistics.commits == before)
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == 5)
        }
    }
}
