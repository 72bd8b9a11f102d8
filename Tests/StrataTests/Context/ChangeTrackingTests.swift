import Testing
@testable import Strata

/// `willChange` skips hashing an object into the context's changed set when the
/// object's stamp says it is there already. Every way out of that set — save, rollback,
/// refresh, a merge policy, reset, a migration batch — must make the next change
/// track the object again, or that change would never be saved.
@Suite struct ChangeTrackingTests {
    /// Sets a new salary on `employee` and saves; returns the salary a fresh context reads.
    private func changeSalary(_ employee: ManagedObject, to salary: Double, in context: ObjectContext) throws -> Double? {
        try employee.setValue(salary, forKey: "salary")
        #expect(context.hasChanges)
        try context.save()
        return try context.store.newContext().existingObject(with: employee.objectID).double("salary")
    }

    @Test func aChangeAfterASaveIsSavedAgain() throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let context = store.newContext()
        let employee = try ContextFixtures.employee(context, "Ada", salary: 1)
        try context.save()
        #expect(!context.hasChanges)
        #expect(try changeSalary(employee, to: 2, in: context) == 2)
        #expect(try changeSalary(employee, to: 3, in: context) == 3)
    }

    @Test func aChangeAfterARollbackOrAFailedSaveIsTracked() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada", salary: 1)
        let context = store.newContext()
        let employee = try context.existingObject(with: id)
        try employee.setValue(5.0, forKey: "salary")
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try changeSalary(employee, to: 6, in: context) == 6)

        // A save that fails keeps the changes, and the next one writes them.
        try employee.setValue(nil as String?, forKey: "name")   // required: validation fails
        #expect(throws: StrataError.self) { try context.save() }
        try employee.setValue("Ada", forKey: "name")
        #expect(try changeSalary(employee, to: 7, in: context) == 7)
    }

    @Test func aChangeAfterARefreshWithoutMergeIsTracked() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada", salary: 1)
        let context = store.newContext()
        let employee = try context.existingObject(with: id)
        try employee.setValue(5.0, forKey: "salary")
        context.refresh(employee, mergeChanges: false)
        #expect(!context.hasChanges)
        #expect(try changeSalary(employee, to: 8, in: context) == 8)
    }

    @Test func aChangeAfterTheStoreWonAConflictIsTracked() throws {
        let (store, id) = try ContextFixtures.storeWithEmployee("Ada", salary: 1)
        let mine = store.newContext()
        mine.mergePolicy = .storeWins
        let employee = try mine.existingObject(with: id)
        try employee.setValue(2.0, forKey: "salary")
        let other = store.newContext()
        try other.existingObject(with: id).setValue(3.0, forKey: "salary")
        try other.save()
        try mine.save()   // the store's 3 wins; this context's change is dropped
        #expect(try store.newContext().existingObject(with: id).double("salary") == 3)
        #expect(try changeSalary(employee, to: 9, in: mine) == 9)
    }

    @Test func anObjectDeletedAndInsertedAgainAfterAResetIsNotTheOldOne() throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let context = store.newContext()
        let first = try ContextFixtures.employee(context, "Ada")
        context.reset()
        #expect(throws: StrataError.self) { try first.setValue(2.0, forKey: "salary") }   // reset deleted it
        let second = try ContextFixtures.employee(context, "Grace", salary: 4)
        try context.save()
        #expect(try store.newContext().existingObject(with: second.objectID).double("salary") == 4)
        #expect(try changeSalary(second, to: 10, in: context) == 10)
    }

    @Test func manyObjectsChangedInTurnAreAllSaved() throws {
        // Each insert moves the generation on: every earlier object's stamp is stale,
        // and changing it again must still find it tracked (it is, once).
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let context = store.newContext()
        let employees = try (0..<20).map { try ContextFixtures.employee(context, "E\($0)", salary: Double($0)) }
        for (i, employee) in employees.enumerated().reversed() { try employee.setValue(Double(100 + i), forKey: "salary") }
        #expect(context.insertedObjects.count == 20)
        try context.save()
        let reader = store.newContext()
        for (i, employee) in employees.enumerated() {
            #expect(try reader.existingObject(with: employee.objectID).double("salary") == Double(100 + i))
        }
        for (i, employee) in employees.enumerated() where i.isMultiple(of: 3) { try employee.setValue(Double(200 + i), forKey: "salary") }
        #expect(context.updatedObjects.count == 7)
        try context.save()
        for (i, employee) in employees.enumerated() {
            let expected = Double(i.isMultiple(of: 3) ? 200 + i : 100 + i)
            #expect(try store.newContext().existingObject(with: employee.objectID).double("salary") == expected)
        }
    }
}
