import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// refresh(_:mergeChanges:) both ways, external binaries freed, and rollback.
@Suite struct RefreshAndRollbackTests {
    @Test func refreshWithoutMergeDropsChangesAndShowsTheStoresValues() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada", salary: 1000)
        let context = store.newContext()
        let ada = try context.object(with: id)
        try ada.setValue(2000.0, forKey: "salary")
        #expect(context.hasChanges)

        // Another context saves a new name meanwhile.
        let other = store.newContext()
        try other.object(with: id).setValue("Ada L.", forKey: "name")
        try other.save()

        context.refresh(ada, mergeChanges: false)
        #expect(ada.isFault)
        #expect(!context.hasChanges && !ada.hasChanges)
        #expect(try ada.double("salary") == 1000)
        #expect(try ada.string("name") == "Ada L.")
        try context.save() // nothing to save, no conflict
    }

    @Test func refreshWithMergeKeepsChangesOverTheNewestValues() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada", salary: 1000)
        let context = store.newContext()
        let ada = try context.object(with: id)
        try ada.setValue(2000.0, forKey: "salary")
        try ada.setValue("temp", forKey: "title")

        let other = store.newContext()
        try other.object(with: id).setValue("Ada L.", forKey: "name")
        try other.save()

        context.refresh(ada, mergeChanges: true)
        #expect(ada.isFault)
        #expect(ada.hasChanges && context.hasChanges)
        // Saving straight away must not write the unchanged fields as empty.
        try context.save()
        let reader = store.newContext()
        let fresh = try reader.object(with: id)
        #expect(try fresh.string("name") == "Ada L.")
        #expect(try fresh.double("salary") == 2000)
        #expect(try fresh.string("title") == "temp")
    }

    @Test func refreshFreesExternalBinaries() throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let setup = store.newContext()
        let ada = try ContextFixtures.employee(setup, "Ada")
        let photo = Data(LogFixtures.noise(50_000, seed: 1))
        try ada.setValue(photo, forKey: "photo")
        try setup.save()

        let context = store.newContext()
        let employee = try context.object(with: ada.objectID)
        store.resetStatistics()
        #expect(try employee.data("photo") == photo)
        #expect(store.statistics.blobsRead == 1)
        #expect(try employee.data("photo") == photo)
        #expect(store.statistics.blobsRead == 1) // cached until refresh
        #expect(!employee.blobCache.isEmpty)

        context.refresh(employee, mergeChanges: false)
        #expect(employee.blobCache.isEmpty && employee.stored == nil)
        #expect(try employee.data("photo") == photo)
        #expect(store.statistics.blobsRead == 2) // read again: it was freed
    }

    @Test func refreshWithMergeKeepsTransientValuesAndWithoutDropsThem() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Note") {
                Attribute("text", .string)
                Attribute("scratch", .string, optional: true, transient: true)
            }
        }
        let store = try StoreUnderTest.inMemory(model: model)
        let context = store.newContext()
        let note = try context.insert("Note")
        try note.setValue("hello", forKey: "text")
        try context.save()
        try note.setValue("draft", forKey: "scratch")
        context.refresh(note, mergeChanges: true)
        #expect(try note.string("scratch") == "draft")
        context.refresh(note, mergeChanges: false)
        #expect(try note.string("scratch") == nil)
    }

    @Test func rollbackDiscardsInsertsUpdatesAndDeletes() throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let setup = store.newContext()
        let sales = try ContextFixtures.department(setup, "Sales")
        let ada = try ContextFixtures.employee(setup, "Ada", in: sales)
        let bob = try ContextFixtures.employee(setup, "Bob", in: sales)
        try setup.save()

        let context = store.newContext()
        let ada2 = try context.object(with: ada.objectID)
        let bob2 = try context.object(with: bob.objectID)
        let sales2 = try context.object(with: sales.objectID)
        try ada2.setValue("Ada L.", forKey: "name")
        try context.delete(bob2)
        let carl = try ContextFixtures.employee(context, "Carl", in: sales2)
        #expect(context.insertedObjects == [carl])
        #expect(context.updatedObjects.contains(ada2))
        #expect(context.deletedObjects == [bob2])
        #expect(try sales2.count("employees") == 2)

        context.rollback()
        #expect(!context.hasChanges)
        #expect(context.insertedObjects.isEmpty && context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(try ada2.string("name") == "Ada")
        #expect(!bob2.isDeleted)
        #expect(try bob2.object("department") == sales2)
        #expect(try sales2.count("employees") == 2)
        #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 2)
        try context.save()
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == 2)
    }
}
