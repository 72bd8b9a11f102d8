import Testing
import StrataTestSupport
@testable import StrataLog

/// A staging store swapped in (a migration's last step) comes with an index file for
/// every segment, its last one included: the store's reopen reads index files and
/// replays no record (docs/FORMAT.md §10, swap step 0).
@Suite struct StagingAdoptTests {
    @Test(arguments: [10, 3_000])
    func theSwappedInStoreReopensWithoutReplaying(objects: Int) throws {
        let dir = try TemporaryDirectory("staging-adopt")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        var batch = WriteBatch()
        for k in UInt64(1)...UInt64(objects) { batch.put(RecordKey(k), value: LogFixtures.value(k)) }
        try store.commit(batch)
        let staging = try store.makeStagingStore(overlayEntryLimit: 1_000)
        // Several commits, so a staging of 3,000 rolls segments and leaves a last one active.
        var k: UInt64 = 1
        while k <= UInt64(objects) {
            var copy = WriteBatch()
            for key in k...min(UInt64(objects), k + 399) { copy.put(RecordKey(key), value: LogFixtures.value(key, version: 2)) }
            try staging.commit(copy)
            k += 400
        }
        try store.adoptStaging(staging)
        let reopened = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? reopened.close() }
        // Nothing replayed into the overlay: every segment has its index file.
        #expect(reopened.state.withLock { $0.index.overlay.count } == 0)
        for key in UInt64(1)...UInt64(objects) { #expect(try reopened.get(RecordKey(key))?.value == LogFixtures.value(key, version: 2)) }
        #expect(try reopened.count(in: nil) == objects)
    }
}
