import Testing
import Logging
import StrataTestSupport
@testable import StrataLog

/// Damage outside a torn tail is never silently skipped: it is an error naming the
/// file and offset — except an index file, which is derived data: rebuilt from its
/// segment with a warning.
@Suite struct CorruptionTests {
    /// A store with two sealed segments (with index files), a blob, and an active segment.
    static func makeStore(at path: String) throws -> [UInt64: [UInt8]] {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 2048
        options.compressRecords = false
        let store = try LogStore.open(at: path, options: options, logger: .quiet)
        var expected: [UInt64: [UInt8]] = [:]
        for t in 0..<12 {
            var batch = WriteBatch()
            for k in UInt64(0)..<4 {
                let key = UInt64(t) * 4 + k
                let value = LogFixtures.value(key, size: 100)
                batch.put(RecordKey(key), value: value)
                expected[key] = value
            }
            try store.commit(batch)
        }
        let ref = try store.writeBlob(LogFixtures.noise(3000, seed: 9))
        var batch = WriteBatch()
        batch.put(RecordKey(1000), value: [1], blobs: [ref])
        try store.commit(batch)
        expected[1000] = [1]
        try store.close()
        return expected
    }

    @Test func flippedByteInSealedSegmentIsAnErrorNamingFileAndOffset() throws {
        let dir = try TemporaryDirectory("corrupt-seg")
        defer { dir.remove() }
        _ = try Self.makeStore(at: dir.path)
        let segment = dir.path + "/segments/000001.seg"
        let offset = Format.segmentHeaderSize + Format.frameHeaderSize + 30 // inside the first frame's payload
        try FileBytes.flip(segment, at: offset)

        // With its index file, open does not read the segment; the damage surfaces on read and verify.
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        let error = #expect(throws: StrataError.self) { _ = try store.get(RecordKey(0)) }
        #expect(error?.code == .corrupt)
        #expect(error?.path == segment)
        #expect(error?.offset == Int64(Format.segmentHeaderSize))
        let report = try store.verify()
        #expect(!report.isSound)
        #expect(report.problems.contains { $0.path == segment && $0.offset == Int64(Format.segmentHeaderSize) })
        try store.close()

        // Without its index file, open must rebuild it from the segment and refuse loudly.
        try POSIXFileSystem().remove(dir.path + "/index/000001.idx")
        let openError = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
        #expect(openError?.code == .corrupt)
        #expect(openError?.path == segment)
        #expect(openError?.offset == Int64(Format.segmentHeaderSize))
    }

    @Test func everyDamagedManifestByteIsAnError() throws {
        let dir = try TemporaryDirectory("corrupt-manifest")
        defer { dir.remove() }
        _ = try Self.makeStore(at: dir.path)
        let manifest = dir.path + "/MANIFEST"
        let original = try FileBytes.read(manifest)
        for offset in 0..<original.count {
            var bytes = original
            bytes[offset] ^= 0x01
            try FileBytes.write(bytes, to: manifest)
            let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
            #expect(error?.code == .corrupt || error?.code == .unsupportedFormat, "offset \(offset)")
            #expect(error?.path == manifest, "offset \(offset)")
        }
        for cut in [0, 5, original.count / 2, original.count - 1] {
            try FileBytes.write(Array(original.prefix(cut)), to: manifest)
            let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
            #expect(error?.path == manifest)
        }
        try FileBytes.write(original, to: manifest)
        try LogStore.open(at: dir.path, logger: .quiet).close()
    }

    /// A damaged block is found on read (open reads footers only), a damaged footer
    /// at open: either way the file is rebuilt from its segment and every read answers.
    @Test func damagedIndexFileIsRebuiltFromItsSegment() throws {
        let dir = try TemporaryDirectory("corrupt-index")
        defer { dir.remove() }
        let expected = try Self.makeStore(at: dir.path)
        let index = dir.path + "/index/000001.idx"
        let original = try FileBytes.read(index)
        let size = original.count
        for offset in [0, 10, size / 2, size - 100, size - 1] {
            try FileBytes.flip(index, at: offset)
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            for (key, value) in expected { #expect(try store.get(RecordKey(key))?.value == value, "offset \(offset)") }
            #expect(try store.keys().count == expected.count)
            try store.close()
            // The rebuilt file is the original, byte for byte.
            #expect(try FileBytes.read(index) == original, "offset \(offset)")
            let reopened = try LogStore.open(at: dir.path, logger: .quiet)
            #expect(try reopened.verify().isSound)
            try reopened.close()
        }
        try POSIXFileSystem().remove(index)
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(store.count == expected.count)
        try store.close()
    }

    /// Open walks the index files when the active blob file has a torn tail (to know
    /// which of its blobs commits reference): a damaged index block met there is
    /// rebuilt like any other, not thrown as an internal error (store fuzz target,
    /// Fuzz/Corpus/store/crash-0fc717df…).
    @Test func damagedIndexBlockMetWhileCuttingATornBlobTailIsRebuilt() throws {
        let dir = try TemporaryDirectory("corrupt-index-blob-tail")
        defer { dir.remove() }
        let expected = try Self.makeStore(at: dir.path)
        let blobs = try POSIXFileSystem().contentsOfDirectory(dir.path + "/blobs").filter { $0.hasSuffix(".blob") }.sorted()
        let activeBlob = dir.path + "/blobs/" + (try #require(blobs.last))
        let blobBytes = try FileBytes.read(activeBlob)
        try FileBytes.write(blobBytes + [0x42, 0x42, 0x42], to: activeBlob)  // a torn entry header
        let index = dir.path + "/index/000001.idx"
        let original = try FileBytes.read(index)
        try FileBytes.flip(index, at: 10)  // inside the first data block

        let store = try LogStore.open(at: dir.path, logger: .quiet)
        for (key, value) in expected { #expect(try store.get(RecordKey(key))?.value == value) }
        #expect(try store.verify().isSound)
        try store.close()
        #expect(try FileBytes.read(activeBlob) == blobBytes)
        #expect(try FileBytes.read(index) == original)
    }

    /// Git keeps no empty directory, and a copy may drop the index files: a store without
    /// its index/ directory opens by scanning, read-only too (in memory), and gets its
    /// index files back.
    @Test func missingIndexDirectoryIsRecreated() throws {
        let dir = try TemporaryDirectory("missing-index")
        defer { dir.remove() }
        let expected = try Self.makeStore(at: dir.path)
        try POSIXFileSystem().remove(dir.path + "/index")
        var readOnly = LogStoreOptions()
        readOnly.readOnly = true
        let reader = try LogStore.open(at: dir.path, options: readOnly, logger: .quiet)
        for (key, value) in expected { #expect(try reader.get(RecordKey(key))?.value == value) }
        try reader.close()
        #expect(!POSIXFileSystem().exists(dir.path + "/index"))
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        for (key, value) in expected { #expect(try store.get(RecordKey(key))?.value == value) }
        #expect(try store.verify().isSound)
        try store.close()
        #expect(POSIXFileSystem().exists(dir.path + "/index/000001.idx"))
    }

    @Test func damagedBlobIsAnErrorNamingBlobFileAndOffset() throws {
        let dir = try TemporaryDirectory("corrupt-blob")
        defer { dir.remove() }
        _ = try Self.makeStore(at: dir.path)
        let blob = dir.path + "/blobs/000001.blob"
        try FileBytes.flip(blob, at: Format.blobHeaderSize + Format.blobEntryHeaderSize + 100)
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? store.close() }
        let record = try #require(try store.get(RecordKey(1000)))
        let error = #expect(throws: StrataError.self) { _ = try store.readBlob(record.blobs[0]) }
        #expect(error?.code == .corrupt)
        #expect(error?.path == blob)
        #expect(error?.offset == Int64(Format.blobHeaderSize + Format.blobEntryHeaderSize))
        #expect(try store.verify().problems.contains { $0.path == blob })
    }

    @Test func soundStoreVerifies() throws {
        let dir = try TemporaryDirectory("verify")
        defer { dir.remove() }
        let expected = try Self.makeStore(at: dir.path)
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? store.close() }
        let report = try store.verify()
        #expect(report.isSound, "\(report)")
        #expect(report.recordsChecked == expected.count)
        #expect(report.blobsChecked == 1)
        #expect(report.indexFilesChecked >= 2)
    }
}
