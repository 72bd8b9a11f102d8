import Testing
@testable import Strata

/// `FetchRequest.fetchBatchSize`: firing one fault of a fetch loads that many siblings
/// together (0 keeps the store's `faultBatchSize`).
@Suite struct FetchBatchSizeTests {
    @Test func theRequestsBatchSizeDecidesHowManyFaultsFireTogether() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Item") { Attribute("name", .string) }
        }
        let store = try ObjectStore.inMemory(model: model)
        let setup = store.newContext()
        for i in 0..<10 { try setup.insert("Item").setValue("item \(i)", forKey: "name") }
        try setup.save()

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
}
