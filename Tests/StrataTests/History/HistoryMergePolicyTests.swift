import Foundation
@testable import Strata
import StrataLog
import StrataTestSupport
import Testing

/// History of saves that a merge policy settled, and of deletes of edited objects: an
/// entry names what the commit wrote over the store's version, never what the context
/// only believed was there. And what a merge writes keeps the model's rules.
@Suite struct HistoryMergePolicyTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .nullify)
            }
            Entity("Employee") {
                Attribute("name", .string).preservesValueOnDeletion()
                Attribute("salary", .double, default: .double(0))
                Attribute("email", .string, optional: true, unique: true).preservesValueOnDeletion()
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Relationship("department", to: "Department", inverse: "employees", optional: true)
            }
        }
    }

    /// Past the external-storage threshold: kept in the blob area.
    static let photo = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// A store with Ada (ada@example.com, salary 1, a photo) in Sales, and an empty Support.
    static func company() throws -> (store: ObjectStore, ada: ObjectID, sales: ObjectID, support: ObjectID) {
        var options = StoreOptions()
        options.historyTracking = true
        let store = try ObjectStore.inMemory(model: try model(), options: options)
        let context = store.newContext()
        let sales = try context.insert("Department")
        try sales.setValue("Sales", forKey: "name")
        let support = try context.insert("Department")
        try support.setValue("Support", forKey: "name")
        let ada = try context.insert("Employee")
        try ada.setValue("Ada", forKey: "name")
        try ada.setValue(1.0, forKey: "salary")
        try ada.setValue("ada@example.com", forKey: "email")
        try ada.setValue(Self.photo, forKey: "photo")
        try ada.setObject(sales, forKey: "department")
        try context.save()
        return (store, ada.objectID, sales.objectID, support.objectID)
    }

    /// An object read (its fault fired) by a context of its own under `policy`, before
    /// another save changes it.
    static func staleRead(_ store: ObjectStore, _ id: ObjectID, policy: MergePolicy) throws -> (context: ObjectContext, object: ManagedObject) {
        let context = store.newContext()
        context.mergePolicy = policy
        let object = try context.object(with: id)
        _ = try object.string("name")
        return (context, object)
    }

    /// Deletes the object through another context, and saves.
    static func deleteElsewhere(_ store: ObjectStore, _ id: ObjectID) throws {
        let theirs = store.newContext()
        try theirs.delete(try theirs.object(with: id))
        try theirs.save()
    }

    @Test func contextWinsNamesWhatItWritesBackOverTheStoresVersion() throws {
        let (store, ada, sales, support) = try Self.company()
        let (mine, stale) = try Self.staleRead(store, ada, policy: .contextWins)

        let theirs = store.newContext()
        let moved = try theirs.object(with: ada)
        try moved.setValue("Ada Lovelace", forKey: "name")
        try moved.setObject(try theirs.object(with: support), forKey: "department")
        try theirs.save()

        let token = store.currentHistoryToken
        try stale.setValue(2.0, forKey: "salary")
        try mine.save()

        // The whole object as this context read it replaced the store's.
        let reader = store.newContext()
        let now = try reader.object(with: ada)
        #expect(try now.string("name") == "Ada")
        #expect(try now.object("department")?.objectID == sales)
        let changes = try #require(try store.fetchHistory(after: token).first).changes
        let update = try #require(changes.first { $0.changedObjectID == ada })
        #expect(Set(update.updatedAttributes) == ["name", "salary", "department"])
        // Both departments' employees changed: Support lost Ada, Sales has her back.
        for department in [sales, support] {
            #expect(changes.contains(HistoryTransaction.Change(changeType: .update, changedObjectID: department, updatedAttributes: ["employees"])))
        }
    }

    @Test func contextWinsRecreatesAnObjectTheStoreDeletedWhole() throws {
        let (store, ada, sales, _) = try Self.company()
        let (mine, stale) = try Self.staleRead(store, ada, policy: .contextWins)

        try Self.deleteElsewhere(store, ada)

        let token = store.currentHistoryToken
        try stale.setValue(2.0, forKey: "salary")
        try mine.save()

        // Not only the changed salary: every value this context read.
        let reader = store.newContext()
        let back = try reader.object(with: ada)
        #expect(try back.string("name") == "Ada")
        #expect(try back.string("email") == "ada@example.com")
        #expect(try back.double("salary") == 2)
        #expect(try back.data("photo") == Self.photo)
        #expect(try back.object("department")?.objectID == sales)
        let changes = try #require(try store.fetchHistory(after: token).first).changes
        #expect(changes.contains { $0.changeType == .insert && $0.changedObjectID == ada })
        #expect(changes.contains(HistoryTransaction.Change(changeType: .update, changedObjectID: sales, updatedAttributes: ["employees"])))
    }

    @Test func contextWinsDoesNotRecreateAnObjectWhoseUniqueValueWasTakenMeanwhile() throws {
        let (store, ada, _, _) = try Self.company()
        let (mine, stale) = try Self.staleRead(store, ada, policy: .contextWins)

        let theirs = store.newContext()
        try theirs.delete(try theirs.object(with: ada))
        let bea = try theirs.insert("Employee")
        try bea.setValue("Bea", forKey: "name")
        try bea.setValue("ada@example.com", forKey: "email")
        try theirs.save()

        try stale.setValue(2.0, forKey: "salary")
        let error = #expect(throws: StrataError.self) { try mine.save() }
        #expect(error?.code == .validationFailed)
        let reader = store.newContext()
        let employees = try reader.fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "email == 'ada@example.com'")))
        #expect(try employees.map { try $0.string("name") } == ["Bea"])
    }

    @Test func aValueTheStoreTrumpsInIsCheckedAgainstTheRestOfTheSave() throws {
        let (store, ada, _, _) = try Self.company()
        let (mine, stale) = try Self.staleRead(store, ada, policy: .propertyLevelStoreTrump)
        let bob = try mine.insert("Employee")
        try bob.setValue("Bob", forKey: "name")
        try bob.setValue("shared@example.com", forKey: "email")
        try stale.setValue("ada@elsewhere.example", forKey: "email")

        let theirs = store.newContext()
        try theirs.object(with: ada).setValue("shared@example.com", forKey: "email")
        try theirs.save()

        // The store's email wins for Ada, and is the one this save gives Bob.
        let error = #expect(throws: StrataError.self) { try mine.save() }
        #expect(error?.code == .validationFailed)
        let reader = store.newContext()
        let holders = try reader.fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "email == 'shared@example.com'")))
        #expect(holders.map(\.objectID) == [ada])
    }

    @Test func aTombstoneKeepsTheStoredValuesNotTheUnsavedEdits() throws {
        let (store, ada, _, _) = try Self.company()
        let context = store.newContext()
        let object = try context.object(with: ada)
        try object.setValue("ada@elsewhere.example", forKey: "email")
        try object.setValue("Someone else", forKey: "name")
        try context.delete(object)
        let token = store.currentHistoryToken
        try context.save()

        let changes = try #require(try store.fetchHistory(after: token).first).changes
        let delete = try #require(changes.first { $0.changedObjectID == ada })
        #expect(delete.changeType == .delete)
        #expect(delete.tombstone == ["name": .string("Ada"), "email": .string("ada@example.com")])
    }

    @Test func aTombstoneOfAnObjectTheStoreDeletedFirstIsEmpty() throws {
        let (store, ada, _, _) = try Self.company()
        let (mine, stale) = try Self.staleRead(store, ada, policy: .contextWins)
        try Self.deleteElsewhere(store, ada)

        try mine.delete(stale)
        let token = store.currentHistoryToken
        try mine.save()
        let changes = try #require(try store.fetchHistory(after: token).first).changes
        let delete = try #require(changes.first { $0.changedObjectID == ada })
        #expect(delete.changeType == .delete)
        #expect(delete.tombstone?.isEmpty != false)
    }
    /// An object a merge policy re-creates is in its context's registry, unlike an
    /// insert: a large save that nobody else's reference outlives must take it out of
    /// the registry as it frees it, or the next lookup of its key reads freed memory.
    @Test func aRecreatedObjectInALargeSaveLeavesTheRegistryClean() throws {
        let (store, ada, _, _) = try Self.company()
        let mine = store.newContext()
        mine.mergePolicy = .contextWins
        do {
            let stale = try mine.object(with: ada)
            _ = try stale.string("name")
            try stale.setValue(2.0, forKey: "salary")
        }
        for i in 0..<1_100 {
            let department = try mine.insert("Department")
            try department.setValue("D\(i)", forKey: "name")
        }
        try Self.deleteElsewhere(store, ada)

        try mine.save()
        // Nobody held it: gone, and out of the registry, as every object nobody holds.
        #expect(mine.registry.count == 0)
        let again = try mine.object(with: ada)
        #expect(again.objectID == ada)
        #expect(try again.double("salary") == 2)
        #expect(try again.string("name") == "Ada")
    }
}
