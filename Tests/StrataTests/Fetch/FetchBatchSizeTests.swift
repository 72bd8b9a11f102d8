import Testing
@testable import Strata

/// `FetchRequest.fetchBatchSize`: firing one fault of a fetch loads that many siblings
/// together (0 keeps the store's `faultBatchSize`).
@Suite struct FetchBatchSizeTests {
    /// A store of ten items named "item 0" … "item 9".
    static func storeOfTenItems() throws -> ObjectStore {
        let model = try ObjectModel(version: "1") {
            Entity("Item") { Attribute("name", .string) }
        }
        let store = try StoreUnderTest.inMemory(model: model)
        let setup = store.newContext()
        for i in 0..<10 { try setup.insert("Item").setValue("item \(i)", forKey: "name") }
        try setup.save()
        return store
    }

    @Test func theRequestsBatchSizeDecidesHowManyFaultsFireTogether() throws {
        let store = try Self.storeOfTenItems()

        let context = store.newContext()
        var request = FetchRequest(entityName: "Item")
        request.fetchBatchSize = 3
        let items = try context.fetch(request)
        #expect(items.allSatisfy { $0.isFault })
        store.resetStatistics()
        _ = try items[0].string("name")
        #expect(items.prefix(3).allSatisfy { !$0.isFault })
        #expect(items.dropFirst(3).allSatisfy { $0.isFault })
        #expect(store.statistics.recordsDecoded == 3)
    }

    /// Firing a fault loads its batch on both sides (positions cut into runs of the
    /// batch size), so a backward walk reads one batch per run, as a forward one does.
    @Test func aFaultLoadsItsBatchOnBothSides() throws {
        let store = try Self.storeOfTenItems()

        var request = FetchRequest(entityName: "Item")
        request.fetchBatchSize = 4
        let context = store.newContext()
        let items = try context.fetch(request)
        store.resetStatistics()
        _ = try items[5].string("name")  // the run of positions 4…7
        #expect(items.indices.filter { !items[$0].isFault } == [4, 5, 6, 7])
        #expect(store.statistics.recordsDecoded == 4)

        // Walking backwards: each fault fired loads its whole run, never a run twice.
        let other = store.newContext()
        let backwards = try other.fetch(request)
        store.resetStatistics()
        _ = try backwards[9].string("name")
        #expect(backwards.indices.filter { !backwards[$0].isFault } == [8, 9])
        _ = try backwards[7].string("name")
        #expect(backwards.indices.filter { !backwards[$0].isFault } == [4, 5, 6, 7, 8, 9])
        for item in backwards.reversed() { _ = try item.string("name") }
        #expect(store.statistics.recordsDecoded == 10)
    }

    /// With the store's batch size, a walk in order reads ahead: each fault just past
    /// the last batch loads twice as many as that batch, up to eight runs; a fault
    /// fired anywhere else loads its own run. The request's own size stays exact (above).
    @Test func aWalkInOrderReadsAheadWithTheStoresBatchSize() throws {
        let model = try ObjectModel(version: "1") { Entity("Item") { Attribute("name", .string) } }
        var options = StoreOptions()
        options.faultBatchSize = 4
        let store = try StoreUnderTest.inMemory(model: model, options: options)
        let setup = store.newContext()
        for i in 0..<100 { try setup.insert("Item").setValue("item \(i)", forKey: "name") }
        try setup.save()

        let context = store.newContext()
        let items = try context.fetch(FetchRequest(entityName: "Item"))
        func loaded() -> [Int] { items.indices.filter { !items[$0].isFault } }
        var decoded: [Int] = []
        for (i, item) in items.enumerated() where item.isFault {
            store.resetStatistics()
            _ = try item.string("name")
            decoded.append(store.statistics.recordsDecoded)
            #expect(loaded() == Array(0..<(i + (decoded.last ?? 0))))
        }
        #expect(decoded == [4, 8, 16, 32, 32, 8])

        // Out of order: the run of the fault fired, then reading ahead from its end.
        let other = store.newContext()
        let jumping = try other.fetch(FetchRequest(entityName: "Item"))
        store.resetStatistics()
        _ = try jumping[50].string("name")
        #expect(jumping.indices.filter { !jumping[$0].isFault } == [48, 49, 50, 51])
        _ = try jumping[10].string("name")
        #expect(jumping.indices.filter { !jumping[$0].isFault } == [8, 9, 10, 11, 48, 49, 50, 51])
        _ = try jumping[12].string("name")
        #expect(jumping.indices.filter { !jumping[$0].isFault } == Array(8..<20) + [48, 49, 50, 51])
        #expect(store.statistics.recordsDecoded == 16)
    }
}
