import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// The migration budget covers the block cache and the staging store's overlay as well
/// as the objects in flight: were the cache and the overlay to come on top of a batch
/// that takes the whole budget, a large migration would peak well above its budget.
@Suite struct MigrationBudgetTests {
    @Test(arguments: [4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30])
    func theSharesFitTheBudget(budget: Int) {
        var options = StoreOptions()
        options.migrationMemoryBudget = budget
        let shares = MigrationBudget(options)
        let total = shares.cacheBytes + shares.stagingOverlayEntries * MigrationBudget.bytesPerOverlayEntry
            + shares.batch * MigrationBudget.bytesPerObject
        #expect(total <= budget, "cache \(shares.cacheBytes), overlay \(shares.stagingOverlayEntries), batch \(shares.batch)")
        #expect(shares.cacheBytes <= options.log.blockCacheBytes)
        #expect(shares.stagingOverlayEntries <= options.log.overlayEntryLimit)
        #expect(shares.batch >= 16)
        #expect(options.migrationBatch == shares.batch)
    }

    @Test func theDefaultBudgetSharesOut() {
        let shares = MigrationBudget(StoreOptions())
        #expect(shares.cacheBytes == 16 << 20)
        #expect(shares.stagingOverlayEntries == 32_768)
        #expect(shares.batch == 5_120)
    }

    @Test func aSmallerCacheOrOverlayOrAnExplicitBatchIsKept() {
        var options = StoreOptions()
        options.log.blockCacheBytes = 1 << 20
        options.log.overlayEntryLimit = 2_000
        options.migrationBatchSize = 77
        let shares = MigrationBudget(options)
        #expect(shares.cacheBytes == 1 << 20)
        #expect(shares.stagingOverlayEntries == 2_000)
        #expect(shares.batch == 77)
    }

    /// End to end: under a 1 MiB budget the staging store seals every 1,024 keys (its
    /// overlay's share), the store adopted is those segments, and every object arrives.
    @Test func aRewritingMigrationKeepsTheStagingOverlayToItsShare() throws {
        let dir = try TemporaryDirectory("migration-budget")
        defer { dir.remove() }
        let v1 = try ObjectModel(version: "budget-1") {
            Entity("Person") { Attribute("name", .string) }
        }
        let v2 = try ObjectModel(version: "budget-2") {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("city", .string, default: .string("Lyon"))
            }
        }
        let count = 3_000
        do {
            let store = try ObjectStore(at: dir.path, model: v1)
            let context = store.newContext()
            for i in 0..<count { try context.insert("Person").setValue("person \(i)", forKey: "name") }
            try context.save()
            try store.close()
        }
        var options = StoreOptions()
        options.migrationMemoryBudget = 1 << 20
        // A mapping model (not `.inferred`) always rewrites through a staging store.
        options.migration = .mappings([try MappingModel.inferred(from: v1, to: v2)], models: [v2])
        let progress = ProgressLog()
        options.migrationProgress = { progress.append($0) }
        let shares = MigrationBudget(options)
        #expect(shares.stagingOverlayEntries == 1_024 && shares.batch == 64)
        do {
            let store = try ObjectStore(at: dir.path, model: v2, options: options)
            let people = try store.newContext().fetch(FetchRequest(entityName: "Person", sortKeys: [.ascending("name")]))
            #expect(people.count == count)
            #expect(Set(try people.map { try $0.string("name") ?? "" }) == Set((0..<count).map { "person \($0)" }))
            #expect(try people.allSatisfy { try $0.string("city") == "Lyon" })
            try store.close()
        }
        let largest = progress.entries.map(\.largestBatch).max() ?? .max
        #expect(largest <= 2 * shares.batch, "objects in flight followed the batch (largest \(largest))")
        let log = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? log.close() }
        #expect(log.usage.segmentCount >= count / shares.stagingOverlayEntries,
                "3,000 keys at 1,024 an overlay: \(log.usage.segmentCount) segments")
    }
}
