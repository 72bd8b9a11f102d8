import Testing
import StrataTestSupport
@testable import StrataLog

/// Regression, found by the compact-mode real-crash test: a blob written but not yet
/// committed was counted as garbage, so a compaction between `writeBlob` and `commit`
/// deleted its blob file and the commit then stored a reference to a file the store no
/// longer had. No crash is needed; this reproduces the race in one thread.
@Suite struct UncommittedBlobCollectionTests {
    @Test func compactionBetweenWriteBlobAndCommitKeepsTheBlob() throws {
        let directory = try TemporaryDirectory("uncommitted-blob")
        defer { directory.remove() }
        let store = try LogStore.open(at: directory.path, logger: .quiet)
        defer { try? store.close() }
        let bytes = LogFixtures.noise(1_000, seed: 1)
        let ref = try store.writeBlob(bytes)
        try store.compact(force: true)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1], blobs: [ref])
        try store.commit(batch)
        #expect(try store.readBlob(ref) == bytes)
        #expect(try store.verify().isSound)
    }
}
