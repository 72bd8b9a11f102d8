import Foundation
import Testing
import StrataLog
@testable import Strata

/// `ObjectContext.enumerateObjects`: a request's matches in batches, each let go before
/// the next is read, so a walk over a whole entity holds one batch at a time.
@Suite struct FetchEnumerateTests {
    static func itemStore(_ count: Int) throws -> ObjectStore {
        let model = try ObjectModel(version: "1") {
            Entity("Item") {
                Attribute("name", .string)
                Attribute("rank", .int64, default: .int(0))
            }
            Entity("Special", parent: "Item") {}
        }
        let store = try StoreUnderTest.inMemory(model: model)
        let setup = store.newContext()
        for i in 0..<count {
            let item = try setup.insert(i % 10 == 9 ? "Special" : "Item")
            try item.setValue("item \(i)", forKey: "name")
            try item.setValue(i, forKey: "rank")
        }
        try setup.save()
        return store
    }

    @Test func batchesCoverEveryObjectOnceAndHoldOneBatchAtATime() throws {
        let store = try Self.itemStore(250)
        let context = store.newContext()
        var sizes: [Int] = []
        var ranks: [Int] = []
        var largestAlive = 0
        store.resetStatistics()
        try context.enumerateObjects(FetchRequest(entityName: "Item"), batchSize: 32) { items in
            sizes.append(items.count)
            ranks += try items.map { try #require(try $0.int("rank")) }
            largestAlive = max(largestAlive, context.liveObjectCount)
        }
        #expect(sizes == Array(repeating: 32, count: 7) + [26])
        #expect(ranks.sorted() == Array(0..<250), "subentities included, each object once")
        #expect(largestAlive <= 32, "one batch alive at a time (\(largestAlive))")
        #expect(context.registry.count <= 32, "released objects leave the registry")
        #expect(store.statistics.recordsDecoded == 250, "each record read once")
    }

    @Test func predicateOffsetLimitAndSubentitiesWorkAsInAFetch() throws {
        let store = try Self.itemStore(100)
        let context = store.newContext()
        var request = FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "rank >= 40"))
        request.fetchOffset = 5
        request.fetchLimit = 20
        var walked: [Int] = []
        try context.enumerateObjects(request, batchSize: 7) { items in
            #expect(items.count <= 7)
            walked += try items.map { try #require(try $0.int("rank")) }
        }
        // Store order: every Item (ranks not ending in 9) first, then the Specials.
        let matches = Array(40..<100).filter { $0 % 10 != 9 } + Array(40..<100).filter { $0 % 10 == 9 }
        #expect(walked == Array(matches.dropFirst(5).prefix(20)))
        let fetched = try context.fetch(request).map { try $0.int("rank") ?? -1 }
        #expect(walked == fetched, "the same matches, in the same order, as an unsorted fetch")

        var specials = FetchRequest(entityName: "Item")
        specials.includesSubentities = false
        var count = 0
        try context.enumerateObjects(specials, batchSize: 50) { count += $0.count }
        #expect(count == 90)
    }

    @Test func unsavedInsertsAndDeletesCountUnlessPendingChangesAreExcluded() throws {
        let store = try Self.itemStore(10)
        let context = store.newContext()
        let fresh = try context.insert("Item")
        try fresh.setValue("fresh", forKey: "name")
        let first = try #require(try context.fetch(FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "rank == 0"))).first)
        try context.delete(first)
        var names: [String] = []
        try context.enumerateObjects(FetchRequest(entityName: "Item"), batchSize: 4) { names += try $0.map { try $0.string("name") ?? "" } }
        #expect(names.contains("fresh") && !names.contains("item 0") && names.count == 10)

        var stored = FetchRequest(entityName: "Item")
        stored.includesPendingChanges = false
        var storedCount = 0
        try context.enumerateObjects(stored, batchSize: 4) { storedCount += $0.count }
        #expect(storedCount == 10)
    }

    @Test func misuseIsAnErrorBeforeAnythingIsRead() throws {
        let store = try Self.itemStore(10)
        let context = store.newContext()
        var body = 0
        let sorted = #expect(throws: StrataError.self) {
            try context.enumerateObjects(FetchRequest(entityName: "Item", sortKeys: [.ascending("name")])) { _ in body += 1 }
        }
        #expect(sorted?.code == .invalidArgument)
        let misspelt = #expect(throws: StrataError.self) {
            try context.enumerateObjects(FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "rnak > 3"))) { _ in body += 1 }
        }
        #expect(misspelt?.code == .unknownKeyPath && misspelt?.message.contains("rnak") == true)
        let unknown = #expect(throws: StrataError.self) { try context.enumerateObjects(FetchRequest(entityName: "Itme")) { _ in body += 1 } }
        #expect(unknown?.code == .unknownKeyPath)
        #expect(throws: StrataError.self) { try context.enumerateObjects(FetchRequest(entityName: "Item"), batchSize: 0) { _ in body += 1 } }
        #expect(body == 0)
    }

    @Test func anErrorFromTheBodyStopsTheWalk() throws {
        let store = try Self.itemStore(50)
        let context = store.newContext()
        var batches = 0
        #expect(throws: StrataError.self) {
            try context.enumerateObjects(FetchRequest(entityName: "Item"), batchSize: 10) { _ in
                batches += 1
                if batches == 2 { throw StrataError(.invalidArgument, "stop") }
            }
        }
        #expect(batches == 2)
    }
}
