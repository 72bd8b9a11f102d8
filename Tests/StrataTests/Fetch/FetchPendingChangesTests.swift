import Foundation
import Testing
import StrataTestSupport
@testable import Strata

@Suite("Fetch: unsaved changes")
struct FetchPendingChangesTests {
    /// Ann gets a new age, Bob is deleted, Fay is inserted: none of it saved.
    static func pending(_ store: ObjectStore) throws -> ObjectContext {
        try FetchFixtures.populate(store)
        let context = store.newContext()
        let all = try context.fetch(FetchRequest(entityName: "Employee"))
        try all[0].setValue(46, forKey: "age")           // Ann: 30 → 46
        try context.delete(all[1])                         // Bob
        let fay = try context.insert("Employee")
        try fay.setValue("Fay Dunn", forKey: "name")
        try fay.setValue(30, forKey: "age")
        return context
    }

    @Test("by default unsaved inserts appear, deletes vanish, updates count with new values", arguments: FetchFixtures.Kind.underTest)
    func included(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            let context = try Self.pending(store)
            func names(_ format: String?, sorted: Bool = false) throws -> [String] {
                var request = FetchRequest(entityName: "Employee", predicate: try format.map { try Strata.Predicate(format: $0) })
                if sorted { request.sortKeys = [.ascending("age")] }
                return try FetchFixtures.firstNames(context.fetch(request))
            }
            #expect(try names(nil) == ["Ann", "Cid", "Dana", "Fay", "Eve"]) // key order: Employee keys before Manager keys
            // age is indexed: the index (stored values) lists Ann under 30 and not 46;
            // the fetch still judges her by her new age.
            #expect(try names("age == 30") == ["Dana", "Fay"])
            #expect(try names("age > 45") == ["Ann", "Eve"])
            #expect(try names("age >= 46 AND age <= 46") == ["Ann"])
            #expect(try names("name BEGINSWITH 'Bob'").isEmpty)
            #expect(try names(nil, sorted: true) == ["Cid", "Dana", "Fay", "Ann", "Eve"])
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 5)
            // Derived to-many relationships see them too.
            let rd = try #require(try context.fetch(FetchRequest(entityName: "Department", predicate: try Strata.Predicate(format: "name == 'R&D'"))).first)
            #expect(try FetchFixtures.firstNames(rd.objects("employees")) == ["Ann"])
        }
    }

    @Test("includesPendingChanges = false: the store as it is", arguments: FetchFixtures.Kind.underTest)
    func excluded(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind) { store in
            let context = try Self.pending(store)
            func names(_ format: String?, sorted: Bool = false) throws -> [String] {
                var request = FetchRequest(entityName: "Employee", predicate: try format.map { try Strata.Predicate(format: $0) })
                request.includesPendingChanges = false
                if sorted { request.sortKeys = [.ascending("age")] }
                return try FetchFixtures.firstNames(context.fetch(request))
            }
            #expect(try names(nil) == ["Ann", "Bob", "Cid", "Dana", "Eve"])
            #expect(try names("age == 30") == ["Ann", "Dana"])    // Ann by her stored age
            #expect(try names("age > 45") == ["Eve"])
            #expect(try names("name BEGINSWITH 'Bob'") == ["Bob"])  // deleted, not saved
            #expect(try names("department.name == 'R&D'") == ["Ann", "Bob"])
            #expect(try names(nil, sorted: true) == ["Cid", "Ann", "Dana", "Bob", "Eve"])
            // The objects handed out are still this context's: Ann shows her new age.
            var request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 30"))
            request.includesPendingChanges = false
            #expect(try context.fetch(request).first?.int("age") == 46)
            #expect(try context.count(for: request) == 2)
            let rd = try #require(try context.fetch(FetchRequest(entityName: "Department", predicate: try Strata.Predicate(format: "name == 'R&D'"))).first)
            var departments = FetchRequest(entityName: "Department", predicate: try Strata.Predicate(format: "employees.@count == 2"))
            departments.includesPendingChanges = false
            #expect(try context.fetch(departments).map { try $0.string("name") ?? "" } == ["R&D", "Sales"])
            #expect(try rd.count("employees") == 1)
        }
    }

    @Test("a saved change is what the next context fetches")
    func afterSave() throws {
        try FetchFixtures.withStore(.onDisk) { store in
            let context = try Self.pending(store)
            try context.save()
            let fresh = store.newContext()
            let request = FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 30"))
            #expect(try FetchFixtures.firstNames(fresh.fetch(request)) == ["Dana", "Fay"])
        }
    }
}
