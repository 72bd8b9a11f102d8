import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Two contexts change the same object: the second save is a conflict, settled by the
/// merge policy as Core Data's policies settle it.
@Suite struct OptimisticLockingTests {
    struct Outcome: Equatable {
        var name: String?
        var salary: Double?
        var title: String?
    }

    /// Ada (name "Ada", salary 1000, no title) is read by two contexts; the first saves
    /// name "Store" and salary 3000; the second changes salary to 2000 and title to
    /// "Mine" and saves under `policy`. Returns the store's result.
    static func race(_ policy: MergePolicy) throws -> (Outcome, ObjectStore, ObjectID) {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada", salary: 1000)
        let first = store.newContext()
        let second = store.newContext()
        second.mergePolicy = policy
        let mine = try second.object(with: id)
        _ = try mine.string("name") // read before the other save

        let theirs = try first.object(with: id)
        try theirs.setValue("Store", forKey: "name")
        try theirs.setValue(3000.0, forKey: "salary")
        try first.save()

        try mine.setValue(2000.0, forKey: "salary")
        try mine.setValue("Mine", forKey: "title")
        try second.save()
        return (try outcome(store, id), store, id)
    }

    static func outcome(_ store: ObjectStore, _ id: ObjectID) throws -> Outcome {
        let context = store.newContext()
        let object = try context.object(with: id)
        return Outcome(name: try object.string("name"), salary: try object.double("salary"), title: try object.string("title"))
    }

    @Test func theSecondSaveFailsWithAConflictListingTheObject() throws {
        let error = #expect(throws: StrataError.self) { _ = try Self.race(.error) }
        #expect(error?.code == .conflict)
        #expect(error?.context["objects"]?.contains("Employee/1") == true)
    }

    @Test func aConflictWritesNothingAndRefreshingResolvesIt() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada", salary: 1000)
        let first = store.newContext()
        let second = store.newContext()
        let mine = try second.object(with: id)
        _ = try mine.string("name")
        try first.object(with: id).setValue("Store", forKey: "name")
        try first.save()
        let other = try ContextFixtures.employee(second, "New")
        try mine.setValue(2000.0, forKey: "salary")
        #expect(throws: StrataError.self) { try second.save() }
        #expect(try Self.outcome(store, id) == Outcome(name: "Store", salary: 1000, title: nil))
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == 1) // "New" was not written either

        second.refresh(mine, mergeChanges: true)
        try second.save()
        #expect(try Self.outcome(store, id) == Outcome(name: "Store", salary: 2000, title: nil))
        #expect(!other.isInserted && !other.isFault)
    }

    @Test func storeWinsDropsThisContextsChanges() throws {
        let (outcome, _, _) = try Self.race(.storeWins)
        #expect(outcome == Outcome(name: "Store", salary: 3000, title: nil))
    }

    @Test func contextWinsWritesThisContextsObjectWhole() throws {
        let (outcome, _, _) = try Self.race(.contextWins)
        #expect(outcome == Outcome(name: "Ada", salary: 2000, title: "Mine"))
    }

    @Test func propertyLevelContextTrumpMergesPropertiesWithMineWinning() throws {
        let (outcome, _, _) = try Self.race(.propertyLevelContextTrump)
        #expect(outcome == Outcome(name: "Store", salary: 2000, title: "Mine"))
    }

    @Test func propertyLevelStoreTrumpMergesPropertiesWithTheStoreWinning() throws {
        let (outcome, _, _) = try Self.race(.propertyLevelStoreTrump)
        #expect(outcome == Outcome(name: "Store", salary: 3000, title: "Mine"))
    }

    @Test func storeWinsKeepsAnObjectTheContextDeleted() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee()
        let first = store.newContext()
        let second = store.newContext()
        second.mergePolicy = .storeWins
        let mine = try second.object(with: id)
        _ = try mine.string("name")
        try first.object(with: id).setValue("Store", forKey: "name")
        try first.save()
        try second.delete(mine)
        try second.save()
        #expect(try Self.outcome(store, id).name == "Store")
        #expect(!mine.isDeleted)
    }

    @Test func deletedInTheStoreIsAConflictToo() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee()
        let first = store.newContext()
        let second = store.newContext()
        let mine = try second.object(with: id)
        _ = try mine.string("name")
        try first.delete(try first.object(with: id))
        try first.save()
        try mine.setValue(5.0, forKey: "salary")
        let error = #expect(throws: StrataError.self) { try second.save() }
        #expect(error?.code == .conflict)
    }

    @Test func savesOfTheSameContextDoNotConflictWithThemselves() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee()
        let context = store.newContext()
        let ada = try context.object(with: id)
        for salary in stride(from: 1.0, through: 5.0, by: 1) {
            try ada.setValue(salary, forKey: "salary")
            try context.save()
        }
        #expect(try Self.outcome(store, id).salary == 5)
    }
}
