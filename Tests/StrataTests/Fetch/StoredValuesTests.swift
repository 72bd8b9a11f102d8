import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// `ObjectStore.enumerateStoredValues`: an entity's saved objects as ids and values in
/// key order, the same values faults give, in batches, without sub-entities.
@Suite struct StoredValuesTests {
    @Test(arguments: FetchFixtures.Kind.underTest)
    func valuesAndDestinationsMatchWhatFaultsRead(kind: FetchFixtures.Kind) throws {
        var options = StoreOptions()
        options.externalStorageThreshold = 100
        try FetchFixtures.withStore(kind, options: options) { store in
            try FetchFixtures.populate(store)
            let setup = store.newContext()
            let big = try setup.insert("Employee")
            try big.setValue("Big", forKey: "name")
            try big.setValue(30, forKey: "age")
            try big.setValue(.binary(Data(repeating: 7, count: 500)), forKey: "photo")
            try setup.save()

            let attributes = ["name", "salary", "hired", "photo", "email"]
            var seen: [StoredValues] = []
            var batches: [Int] = []
            try store.enumerateStoredValues(entityName: "Employee", attributes: attributes, toOneRelationships: ["department"], batchSize: 2) { batch in
                batches.append(batch.count)
                seen += batch
            }
            #expect(batches.allSatisfy { $0 <= 2 })
            let context = store.newContext()
            var request = FetchRequest(entityName: "Employee")
            request.includesSubentities = false
            let ids = try context.fetchObjectIDs(request)
            #expect(seen.map(\.objectID) == ids, "key order, Employee only (no Manager)")
            for stored in seen {
                let object = try context.existingObject(with: stored.objectID)
                for (attribute, value) in zip(attributes, stored.values) {
                    #expect(try object.value(forKey: attribute) == value, "\(stored.objectID) \(attribute)")
                }
                #expect(try object.object("department")?.objectID == stored.destinations[0])
            }
            #expect(seen.contains { $0.values[3] == .binary(Data(repeating: 7, count: 500)) }, "an external binary is read")
        }
    }

    @Test func unknownAndUnsuitablePropertiesAreRefused() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            for (attributes, toOnes) in [(["nope"], [String]()), (["mood"], []), (["department"], []), ([], ["name"])] {
                #expect(throws: StrataError.self) {
                    try store.enumerateStoredValues(entityName: "Employee", attributes: attributes, toOneRelationships: toOnes) { _ in }
                }
            }
            #expect(throws: StrataError.self) { try store.enumerateStoredValues(entityName: "Nope", attributes: []) { _ in } }
            #expect(throws: StrataError.self) { try store.enumerateStoredValues(entityName: "Employee", attributes: [], batchSize: 0) { _ in } }
        }
    }
}
