import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// ObjectIDs cross tasks and contexts, and their URIs round-trip.
@Suite struct ObjectIDTests {
    @Test func anIDCrossesTasksAndNamesTheSameObject() async throws {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada")
        let names = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let context = store.newContext() // one context per task
                    return try context.object(with: id).string("name")
                }
            }
            var names: [String?] = []
            for try await name in group { names.append(name) }
            return names
        }
        #expect(names == Array(repeating: "Ada", count: 4))

        // And an id made in a task comes back to this one.
        let made = try await Task.detached {
            let context = store.newContext()
            let bob = try ContextFixtures.employee(context, "Bob")
            try context.save()
            return bob.objectID
        }.value
        let context = store.newContext()
        #expect(try context.object(with: made).string("name") == "Bob")
    }

    @Test func theIDTakenAtInsertStaysValidAfterSave() throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let context = store.newContext()
        let ada = try ContextFixtures.employee(context, "Ada")
        let id = ada.objectID
        try context.save()
        #expect(ada.objectID == id)
        let other = store.newContext()
        #expect(try other.object(with: id).string("name") == "Ada")
    }

    @Test func theURIRoundTripsAcrossOpens() throws {
        let dir = try TemporaryDirectory("objectid-uri")
        defer { dir.remove() }
        let uri: String
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: try ContextFixtures.company())
            let context = store.newContext()
            let ada = try ContextFixtures.employee(context, "Ada")
            try context.save()
            uri = ada.objectID.uriRepresentation
            #expect(uri.hasPrefix("strata://\(store.identifier)/Employee/"))
            #expect(store.objectID(forURI: uri) == ada.objectID)
            try store.close()
        }
        let store = try StoreUnderTest.open(at: dir.path, model: try ContextFixtures.company())
        defer { try? store.close() }
        let id = try #require(store.objectID(forURI: uri))
        #expect(id.uriRepresentation == uri)
        let context = store.newContext()
        #expect(try context.object(with: id).string("name") == "Ada")
    }

    @Test func foreignOrMalformedURIsNameNothing() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee()
        let (other, _) = try ContextFixtures.storeWithEmployee()
        #expect(other.objectID(forURI: id.uriRepresentation) == nil) // another store
        for bad in ["", "strata://", "http://\(store.identifier)/Employee/1", "strata://\(store.identifier)/Nobody/1",
                    "strata://\(store.identifier)/Employee/0", "strata://\(store.identifier)/Employee/x",
                    "strata://\(store.identifier)/Employee/1/2", "strata://\(store.identifier)/Employee/-1"] {
            #expect(store.objectID(forURI: bad) == nil, "\(bad)")
        }
    }
}
