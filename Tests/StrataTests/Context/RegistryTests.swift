import Foundation
import Testing
import StrataLog
@testable import Strata

/// A context's registry does not retain its objects, and each object takes its entry
/// out as it goes, so a context that walks many objects one at a time holds memory for
/// the objects alive, not for every object it ever handed out; an entry
/// that names a newer object for the same key is left alone.
@Suite struct RegistryTests {
    static func store(count: Int) throws -> (ObjectStore, [ObjectID]) {
        let model = try ObjectModel(version: "1") {
            Entity("Item") { Attribute("n", .int64) }
        }
        var options = StoreOptions()
        options.fileSystem = InMemoryFileSystem()
        options.logger = .quiet
        let store = try StoreUnderTest.open(at: "/store", model: model, options: options)
        let ids = try store.batchInsert(entityName: "Item", objects: (0..<count).map { ["n": .int(Int64($0))] })
        return (store, ids)
    }

    @Test func walkingManyObjectsKeepsOnlyTheLiveOnesRegistered() throws {
        let (store, ids) = try Self.store(count: 20_000)
        defer { try? store.close() }
        let context = store.newContext()
        // Every 100th object is kept; the rest are read and dropped.
        var kept: [ManagedObject] = []
        var sum: Int64 = 0
        for (position, id) in ids.enumerated() {
            let object = try context.object(with: id)
            if case .int(let n) = try object.value(forKey: "n") { sum += n }
            if position % 100 == 0 { kept.append(object) }
        }
        #expect(sum == Int64(20_000 * 19_999 / 2))
        // Only the objects alive are registered (a weak registry held 20,000 entries here).
        #expect(context.registry.count == kept.count)
        // The live objects are still the context's own: asked again, the same instances.
        for object in kept { #expect(try context.object(with: object.objectID) === object) }
        // Changed objects are held strongly and stay registered.
        let changedObject = try context.object(with: ids[1])
        try changedObject.setValue(.int(-1), forKey: "n")
        let changedID = changedObject.objectID
        for id in ids { _ = try context.object(with: id) }
        #expect(try context.object(with: changedID).value(forKey: "n") == .int(-1))
        try context.save()
        let reader = store.newContext()
        #expect(try reader.object(with: changedID).value(forKey: "n") == .int(-1))
    }

    @Test func anObjectLeavingAfterAResetLeavesTheNewEntryAlone() throws {
        let (store, ids) = try Self.store(count: 3)
        defer { try? store.close() }
        let context = store.newContext()
        var old: ManagedObject? = try context.object(with: ids[0])
        context.reset()
        let fresh = try context.object(with: ids[0])
        #expect(fresh !== old)
        old = nil
        #expect(old == nil)
        // The first object's departure did not take the second one's entry.
        #expect(try context.object(with: ids[0]) === fresh)
        #expect(context.registry.count == 1)
        // A deleted object that is saved leaves the registry at once; a new object for
        // another key, and the deleted one's own departure later, change nothing.
        var deleted: ManagedObject? = try context.object(with: ids[1])
        try context.delete(try #require(deleted))
        try context.save()
        #expect(context.registry[ids[1].key] == nil)
        deleted = nil
        #expect(deleted == nil)
        #expect(context.registry.count == 1)
        #expect(throws: StrataError.self) { try context.existingObject(with: ids[1]) }
    }

    @Test func objectsOutlivingTheirContextDoNotReachIntoIt() throws {
        let (store, ids) = try Self.store(count: 2)
        defer { try? store.close() }
        var context: ObjectContext? = store.newContext()
        let object = try #require(context).object(with: ids[0])
        #expect(try object.value(forKey: "n") == .int(0))
        context = nil
        #expect(object.context == nil)
        #expect(throws: StrataError.self) { try object.setValue(.int(5), forKey: "n") }
    }

    /// A context going away releases the changed objects it holds; their `deinit`s run
    /// while it is being torn down and must not reach back into it.
    @Test func aContextGoingAwayReleasesItsChangedObjectsSafely() throws {
        let (store, ids) = try Self.store(count: 3)
        defer { try? store.close() }
        var kept: ManagedObject?
        do {
            let context = store.newContext()
            for n in 0..<100 { try context.insert("Item").setValue(.int(Int64(n)), forKey: "n") }
            try context.object(with: ids[1]).setValue(.int(7), forKey: "n")
            kept = try context.insert("Item")
            try context.delete(context.object(with: ids[2]))
        }
        #expect(kept?.context == nil)
        #expect(throws: StrataError.self) { try kept?.setValue(.int(1), forKey: "n") }
        // Nothing was saved.
        #expect(try store.newContext().existingObject(with: ids[1]).value(forKey: "n") == .int(1))
    }

    /// An inserted object is held by the context's changes until saved, found by its id
    /// all along; the save registers it only if its caller still holds it. One that
    /// nobody holds is not marked saved or registered: its id reads the store.
    @Test func insertedObjectsAreRegisteredOnlyIfTheySurviveTheirSave() throws {
        let (store, _) = try Self.store(count: 0)
        defer { try? store.close() }
        let context = store.newContext()
        let kept = try context.insert("Item")
        try kept.setValue(.int(1), forKey: "n")
        var dropped: [ObjectID] = []
        for n in 2...50 {
            let object = try context.insert("Item")
            try object.setValue(.int(Int64(n)), forKey: "n")
            dropped.append(object.objectID)
        }
        // Before the save: the same instance for the id, and among the registered objects.
        #expect(try context.object(with: kept.objectID) === kept)
        #expect(context.registeredObjects.count == 50)
        #expect(context.insertedObjects.count == 50)
        let second = try context.object(with: dropped[0])
        #expect(second.isInserted)
        try context.save()
        // Kept ones: registered, saved, their values loaded (no store read).
        #expect(context.registry.count == 2)
        for object in [kept, second] {
            #expect(try context.object(with: object.objectID) === object)
            #expect(!object.isInserted && !object.hasChanges && !object.isFault)
        }
        #expect(try kept.value(forKey: "n") == .int(1))
        #expect(Set(context.registeredObjects.map(\.objectID)) == [kept.objectID, second.objectID])
        // Dropped ones: gone, each id a fault of the saved record.
        let third = try context.object(with: dropped[1])
        #expect(third.isFault)
        #expect(try third.value(forKey: "n") == .int(3))
        #expect(try context.count(for: FetchRequest(entityName: "Item")) == 50)
        // Changing a kept object after its save is an update of the stored record.
        try kept.setValue(.int(100), forKey: "n")
        #expect(kept.isUpdated)
        try context.save()
        #expect(try store.newContext().existingObject(with: kept.objectID).value(forKey: "n") == .int(100))
    }
}
