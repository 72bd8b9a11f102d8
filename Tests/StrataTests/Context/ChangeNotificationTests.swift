import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// `store.changes()` delivers the inserted, updated and deleted ids of every save.
@Suite struct ChangeNotificationTests {
    @Test func eachSaveIsDeliveredWithItsIDs() async throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        var changes = store.changes().makeAsyncIterator()

        let context = store.newContext()
        let sales = try ContextFixtures.department(context, "Sales")
        let ada = try ContextFixtures.employee(context, "Ada", in: sales)
        let bob = try ContextFixtures.employee(context, "Bob", in: sales)
        try context.save()
        let inserted = try #require(await changes.next())
        #expect(inserted.inserted == [sales.objectID, ada.objectID, bob.objectID])
        #expect(inserted.updated.isEmpty && inserted.deleted.isEmpty)

        try ada.setValue(5.0, forKey: "salary")
        try context.save()
        let updated = try #require(await changes.next())
        #expect(updated.updated == [ada.objectID] && updated.inserted.isEmpty && updated.deleted.isEmpty)
        #expect(updated.sequence > inserted.sequence)

        // Another context's save is delivered the same way; a cascade lists every object.
        let other = store.newContext()
        try other.delete(try other.object(with: sales.objectID))
        try other.save()
        let deleted = try #require(await changes.next())
        #expect(deleted.deleted == [sales.objectID, ada.objectID, bob.objectID])
        #expect(deleted.inserted.isEmpty && deleted.updated.isEmpty)
    }

    @Test func failedAndEmptySavesDeliverNothing() async throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        var changes = store.changes().makeAsyncIterator()
        let context = store.newContext()
        try context.save() // nothing to save
        _ = try context.insert("Employee") // name missing
        #expect(throws: StrataError.self) { try context.save() }
        context.rollback()
        let ada = try ContextFixtures.employee(context, "Ada")
        try context.save()
        let first = try #require(await changes.next())
        #expect(first.inserted == [ada.objectID])
    }

    @Test func anotherContextRefreshesFromTheNotification() async throws {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada")
        let reader = store.newContext()
        let ada = try reader.object(with: id)
        #expect(try ada.string("name") == "Ada")
        var changes = store.changes().makeAsyncIterator()

        let writer = store.newContext()
        try writer.object(with: id).setValue("Ada L.", forKey: "name")
        try writer.save()
        let change = try #require(await changes.next())
        for updated in change.updated { reader.refresh(try reader.object(with: updated), mergeChanges: true) }
        #expect(try ada.string("name") == "Ada L.")
    }

    @Test func closingTheStoreEndsTheStream() async throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        var changes = store.changes().makeAsyncIterator()
        try await store.close()
        #expect(await changes.next() == nil)
    }
}
