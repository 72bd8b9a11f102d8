@testable import Strata
import StrataLog
import Testing

/// A stored to-one reference that names no possible destination — another entity's
/// key, or an entity's counter record — is `.corrupt` when read, not an object.
@Suite struct DamagedReferenceTests {
    /// A store whose employee's `department` field holds `forged` instead of her
    /// department's key (the bytes edited in place, the record committed again).
    static func store(forging forged: (_ employee: RecordKey, _ department: RecordKey) -> RecordKey) throws -> (ObjectStore, ObjectID) {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let context = store.newContext()
        let sales = try ContextFixtures.department(context, "Sales")
        let ada = try ContextFixtures.employee(context, "Ada", in: sales)
        try context.save()
        let record = try #require(try store.records.get(ada.objectID.key))
        let old = withUnsafeBytes(of: sales.objectID.key.rawValue.littleEndian) { Array($0) }
        let new = withUnsafeBytes(of: forged(ada.objectID.key, sales.objectID.key).rawValue.littleEndian) { Array($0) }
        var value = record.value
        let at = try #require((0 ... value.count - 8).first { Array(value[$0 ..< $0 + 8]) == old })
        value.replaceSubrange(at ..< at + 8, with: new)
        var batch = WriteBatch()
        batch.put(record.key, value: value, blobs: record.blobs, terms: record.terms)
        try store.records.commit(batch)
        return (store, ada.objectID)
    }

    @Test func aReferenceToAnotherEntitysKeyIsCorrupt() throws {
        let (store, ada) = try Self.store { employee, _ in employee }
        let context = store.newContext()
        let employee = try context.existingObject(with: ada)
        #expect { _ = try employee.object("department") } throws: { ($0 as? StrataError)?.code == .corrupt }
    }

    @Test func aReferenceToACounterRecordIsCorrupt() throws {
        let (store, ada) = try Self.store { _, department in RecordKey(department.rawValue & ~ObjectID.serialMask) }
        let context = store.newContext()
        let employee = try context.existingObject(with: ada)
        #expect { _ = try employee.object("department") } throws: { ($0 as? StrataError)?.code == .corrupt }
    }

    @Test func anIntactReferenceReadsAsItsObject() throws {
        let (store, ada) = try Self.store { _, department in department }
        let context = store.newContext()
        let employee = try context.existingObject(with: ada)
        #expect(try employee.object("department")?.string("name") == "Sales")
    }
}
