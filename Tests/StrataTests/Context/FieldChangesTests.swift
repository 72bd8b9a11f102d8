import Testing
@testable import Strata

/// The unsaved values of one object, kept by field number: what `hasChanges`,
/// `changedKeys` and save read must stay what a dictionary by name gave.
@Suite struct FieldChangesTests {
    static func employeeShape() throws -> StoreSchema.EntityShape {
        try StoreSchema(model: ContextFixtures.company()).shape("Employee")
    }

    @Test func countsNamesAndRemovalsFollowTheValues() throws {
        let shape = try Self.employeeShape()
        var changes = FieldChanges(shape: shape)
        #expect(changes.isEmpty && changes.names.isEmpty)

        changes["salary"] = .value(.double(10))
        changes["name"] = .value(.string("Ada"))
        changes["name"] = .value(.string("Grace"))  // set twice: one change
        #expect(changes.count == 2)
        #expect(changes.names == ["salary", "name"])
        #expect(changes["name"] == .value(.string("Grace")))
        let salary = try #require(shape.layout.fieldNumbers["salary"])
        #expect(changes[salary] == .value(.double(10)))

        changes["photo"] = .null  // a change to null is a change
        #expect(changes.count == 3 && changes["photo"] == .null)
        changes["photo"] = nil    // no change any more
        changes["title"] = nil    // never changed: nothing happens
        #expect(changes.count == 2 && changes["photo"] == nil)

        changes.removeAll()
        #expect(changes.isEmpty && changes["name"] == nil && changes.names.isEmpty)
    }

    @Test func aNameThatIsNotAStoredFieldIsKeptAside() throws {
        var changes = FieldChanges(shape: try Self.employeeShape())
        changes["nickname"] = .value(.string("Amazing Grace"))
        #expect(changes.count == 1 && changes.names == ["nickname"])
        #expect(changes["nickname"] == .value(.string("Amazing Grace")))
        changes["nickname"] = nil
        #expect(changes.isEmpty)
    }

    @Test func insertSetsTheDefaultsAsChanges() throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let context = store.newContext()
        let employee = try context.insert("Employee")
        #expect(employee.changedKeys == ["salary"])  // the one attribute with a default
        #expect(try employee.double("salary") == 0)
        try employee.setValue("Ada", forKey: "name")
        #expect(employee.changedKeys == ["salary", "name"])
    }
}
