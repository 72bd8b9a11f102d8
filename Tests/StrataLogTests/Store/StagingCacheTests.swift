import Testing
import StrataTestSupport
@testable import StrataLog

/// A migration holds its source store and a staging store at once: they read through
/// one block cache (so its memory is one cache's budget, not two), with their blocks
/// keyed apart even where both number a segment alike.
@Suite struct StagingCacheTests {
    @Test func stagingStoreSharesItsOwnersCacheWithBlocksKeyedApart() throws {
        let dir = try TemporaryDirectory("staging-cache")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        var batch = WriteBatch()
        for k in UInt64(1)...50 { batch.put(RecordKey(k), value: LogFixtures.value(k)) }
        try store.commit(batch)
        let staging = try store.makeStagingStore()
        #expect(staging.blockCache === store.blockCache)
        #expect(staging.cacheNamespace != store.cacheNamespace)
        var copy = WriteBatch()
        for k in UInt64(1)...50 { copy.put(RecordKey(k), value: LogFixtures.value(k, version: 2)) }
        try staging.commit(copy)
        // Both read through the shared cache, each its own bytes.
        for k in UInt64(1)...50 {
            #expect(try store.get(RecordKey(k))?.value == LogFixtures.value(k))
            #expect(try staging.get(RecordKey(k))?.value == LogFixtures.value(k, version: 2))
        }
        try staging.close()
        try store.close()
    }

    /// A migration holds the shared cache to its share of the budget: the blocks already
    /// cached beyond it go at once, reads while it lasts keep within it, both stores stay
    /// readable, and the whole budget comes back afterwards.
    @Test func aLimitedCacheEvictsDownToItsLimitAndGetsItsBudgetBack() throws {
        let dir = try TemporaryDirectory("staging-cache-limit")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.blockCacheBytes = 1 << 20
        options.compressRecords = false
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        var batch = WriteBatch()
        for k in UInt64(1)...2_000 { batch.put(RecordKey(k), value: LogFixtures.value(k, size: 300)) }
        try store.commit(batch)
        try store.sealActiveSegment()
        func readAll(_ s: LogStore) throws {
            for k in UInt64(1)...2_000 { #expect(try s.get(RecordKey(k))?.value == LogFixtures.value(k, size: 300)) }
        }
        try readAll(store)
        func held() -> Int { store.blockCache.usage.index + store.blockCache.usage.records }
        #expect(held() > 256 << 10, "600 KB of records and their index were read: \(held())")

        let limit = 64 << 10
        let readDuring = try store.withBlockCacheLimited(to: limit) { () throws -> Int in
            #expect(held() <= limit, "evicted down to the limit at once: \(held())")
            let staging = try store.makeStagingStore()
            defer { try? staging.close() }
            var copy = WriteBatch()
            for k in UInt64(1)...2_000 { copy.put(RecordKey(k), value: LogFixtures.value(k, size: 300)) }
            try staging.commit(copy)
            try staging.sealActiveSegment()
            try readAll(store)
            try readAll(staging)
            #expect(held() <= limit, "the owner's and the staging store's reads stay within it: \(held())")
            return held()
        }
        #expect(readDuring > 0)
        try readAll(store)
        #expect(held() > 256 << 10, "the whole budget is back: \(held())")
        try store.close()
    }

    /// The staging store seals at the overlay limit its maker gives (a migration's share
    /// of its budget), not at its owner's.
    @Test func stagingStoreSealsAtTheOverlayLimitItIsGiven() throws {
        let dir = try TemporaryDirectory("staging-overlay")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        let staging = try store.makeStagingStore(overlayEntryLimit: 100)
        for start in stride(from: UInt64(1), through: 1_000, by: 50) {
            var batch = WriteBatch()
            for k in start..<(start + 50) { batch.put(RecordKey(k), value: LogFixtures.value(k)) }
            try staging.commit(batch)
        }
        #expect(staging.usage.segmentCount >= 9, "1,000 keys at 100 a segment: \(staging.usage.segmentCount) segments")
        for k in UInt64(1)...1_000 { #expect(try staging.get(RecordKey(k))?.value == LogFixtures.value(k)) }
        try staging.close()
        try store.close()
    }
}
