import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Batch delete")
struct BatchDeleteTests {
    @Test("deletes what the predicate matches in one transaction and publishes it", arguments: FetchFixtures.Kind.underTest)
    func delete(kind: FetchFixtures.Kind) async throws {
        let (deletedIDs, stream) = try FetchFixtures.withStore(kind) { store -> ([ObjectID], ChangeStream) in
            try FetchFixtures.populate(store)
            let predicate = try Strata.Predicate(format: "department.name == 'R&D' OR age > 50")
            let doomed = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee", predicate: predicate))
            let stream = store.changes()
            store.resetStatistics()
            #expect(try store.batchDelete(entityName: "Employee", predicate: predicate) == 3)
            #expect(store.statistics.commits == 1)

            let context = store.newContext()
            #expect(try FetchFixtures.firstNames(context.fetch(FetchRequest(entityName: "Employee"))) == ["Cid", "Dana"])
            // The derived to-many stops listing them; the age index forgets them.
            let rd = try #require(try context.fetch(FetchRequest(entityName: "Department", predicate: try Strata.Predicate(format: "name == 'R&D'"))).first)
            #expect(try rd.count("employees") == 0)
            #expect(try context.count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 30"))) == 1)
            #expect(try store.batchDelete(entityName: "Employee", predicate: predicate) == 0)
            return (doomed, stream)
        }
        var change: ChangeSet?
        for await c in stream { change = c; break }
        #expect(change?.deleted == Set(deletedIDs))
        #expect(change?.inserted.isEmpty == true)
    }

    @Test("no cascade; to-one references to the deleted objects are cleared", arguments: FetchFixtures.Kind.underTest)
    func relationships(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            try FetchFixtures.populate(store)
            let holder = store.newContext()
            let cid = try #require(try holder.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 22"))).first)
            _ = try cid.string("name")

            #expect(try store.batchDelete(entityName: "Department", predicate: try Strata.Predicate(format: "name == 'Sales'")) == 1)
            let context = store.newContext()
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 5) // no cascade
            let sales = try context.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 22 OR age == 30")))
            #expect(try FetchFixtures.firstNames(sales) == ["Ann", "Cid", "Dana"])
            #expect(try sales[1].object("department") == nil)   // cleared, not dangling
            #expect(try sales[0].object("department")?.string("name") == "R&D")
            #expect(try context.count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "department == nil"))) == 3)
            // A predicate through the deleted relationship still runs.
            #expect(try context.count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "department.name == 'Sales'"))) == 0)

            // A context that held Cid meets optimistic locking when it saves him.
            try cid.setValue(23, forKey: "age")
            let error = #expect(throws: StrataError.self) { try holder.save() }
            #expect(error?.code == .conflict)
        }
    }

    @Test("without a predicate every object of the entity and its sub-entities goes")
    func all() throws {
        try FetchFixtures.withStore(.onDisk) { store in
            try FetchFixtures.populate(store)
            #expect(try store.batchDelete(entityName: "Employee") == 5)
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Manager")) == 0)
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Department")) == 3)
            let error = #expect(throws: StrataError.self) { try store.batchDelete(entityName: "Employee", predicate: try Strata.Predicate(format: "agee > 3")) }
            #expect(error?.code == .unknownKeyPath)
        }
    }
}
