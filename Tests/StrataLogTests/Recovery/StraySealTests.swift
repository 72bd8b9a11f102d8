@testable import StrataLog
import StrataTestSupport
import Testing

/// Damage that passes every checksum is refused, not read as something else: a seal
/// frame in the middle of the active segment, and a compressed blob marked uncompressed.
@Suite struct StraySealTests {
    @Test func commitsAfterAStraySealFrameAreNotCutSilently() throws {
        let fs = InMemoryFileSystem()
        let paths = StorePaths("/store")
        let store = try LogStore.open(at: "/store", fileSystem: fs, logger: .quiet)
        var first = WriteBatch()
        first.put(RecordKey(1), value: [1])
        try store.commit(first)
        let afterFirst = try #require(fs.fileSize(paths.segment(1)))
        var second = WriteBatch()
        second.put(RecordKey(2), value: [2])
        try store.commit(second)
        try store.close()
        // A seal frame, whole and with its checksum, between the two commits.
        var bytes = try #require(fs.bytes(of: paths.segment(1)))
        bytes.insert(contentsOf: LogStore.sealFrame(min: 1, max: 1), at: afterFirst)
        try fs.setBytes(bytes, of: paths.segment(1))

        #expect {
            _ = try LogStore.open(at: "/store", fileSystem: fs, logger: .quiet)
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .corrupt && error?.path == paths.segment(1)
        }
    }

    @Test func aCompressedBlobMarkedUncompressedIsCorrupt() throws {
        let fs = InMemoryFileSystem()
        let paths = StorePaths("/store")
        let store = try LogStore.open(at: "/store", fileSystem: fs, logger: .quiet)
        let ref = try store.writeBlob(Array(repeating: 7, count: 4_096))
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1], blobs: [ref])
        try store.commit(batch)
        #expect(try store.readBlob(ref) == Array(repeating: 7, count: 4_096))
        try store.close()
        // The LZ4 flag cleared, the header's checksum made right again.
        var bytes = try #require(fs.bytes(of: paths.blob(ref.file)))
        let start = Int(ref.offset)
        var header = try #require(BlobEntryHeader.decode(bytes[start ..< start + Format.blobEntryHeaderSize]))
        #expect(header.flags & BlobFlags.lz4 != 0)
        header.flags &= ~BlobFlags.lz4
        bytes.replaceSubrange(start ..< start + Format.blobEntryHeaderSize, with: header.encoded())
        try fs.setBytes(bytes, of: paths.blob(ref.file))

        let reopened = try LogStore.open(at: "/store", fileSystem: fs, logger: .quiet)
        #expect { try reopened.readBlob(ref) } throws: { ($0 as? StrataError)?.code == .corrupt }
    }
}
