import StrataLog
@testable import StrataLog
import StrataTestSupport
import Testing

/// Numbers a damaged file can push to their limit are refused, never wrapped or trapped on.
@Suite struct DamagedCounterTests {
    @Test func aManifestAtTheLastGenerationRefusesTheNextSwap() throws {
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: "/store", fileSystem: fs, logger: .quiet)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        try store.commit(batch)
        try store.close()
        // The manifest as a damaged disk could leave it, checksum and all.
        let writer = ManifestWriter(fileSystem: fs, paths: StorePaths("/store"))
        var manifest = try writer.read()
        manifest.generation = UInt64.max
        try writer.write(manifest)

        let reopened = try LogStore.open(at: "/store", fileSystem: fs, logger: .quiet)
        #expect(try reopened.get(RecordKey(1))?.value == [1])
        #expect {
            try reopened.setMetadata(["note": [1]])
        } throws: { ($0 as? StrataError)?.code == .limitExceeded }
    }
}
