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
}
