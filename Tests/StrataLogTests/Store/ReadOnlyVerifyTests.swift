import Testing
import StrataTestSupport
@testable import StrataLog

/// `verify()` of a read-only store given a `scratchDirectory` rebuilds each sealed
/// segment's index file through sorters that spill there (a segment sealed around one
/// chunked commit is not held in memory), writes nothing in the store, leaves nothing
/// in the scratch directory, and finds what the in-memory rebuild finds.
@Suite struct ReadOnlyVerifyTests {
    static let root = "/store"

    static func store(_ fs: any FileSystem) throws {
        var options = LogStoreOptions()
        options.bulkSortBatch = 7
        options.overlayEntryLimit = 16
        let store = try LogStore.open(at: root, options: options, fileSystem: fs, logger: .quiet)
        var next: UInt64 = 1
        try store.commit { batch, _ in
            for key in next..<(next + 20) { batch.put(RecordKey(key), value: LogFixtures.value(key, version: 1, size: 40), terms: [IndexTerm(index: 1, value: [UInt8(key % 3)])]) }
            next += 20
            return next <= 200
        }
        var batch = WriteBatch()
        for key in UInt64(1)...30 { batch.put(RecordKey(key), value: LogFixtures.value(key, version: 2, size: 20)) }
        try store.commit(batch)
        try store.sealActiveSegment()
        try store.close()
    }

    static func readOnly(scratch: String?) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.readOnly = true
        options.bulkSortBatch = 7
        options.scratchDirectory = scratch
        return options
    }

    @Test func aReadOnlyVerifySpillsToTheScratchDirectoryAndWritesNothingInTheStore() throws {
        let memory = InMemoryFileSystem()
        try Self.store(memory)
        try memory.createDirectory("/scratch")
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let store = try LogStore.open(at: Self.root, options: Self.readOnly(scratch: "/scratch"), fileSystem: fs, logger: .quiet)
        fs.resetCounts()
        let report = try store.verify()
        #expect(report.isSound, "\(report)")
        #expect(report.indexFilesChecked >= 2)
        // Scratch files were written there, and only there, and are gone.
        #expect((fs.counts[.create] ?? 0) > 0)
        #expect(try memory.contentsOfDirectory("/scratch").isEmpty)
        #expect(try memory.contentsOfDirectory(Self.root + "/index").allSatisfy { $0.hasSuffix(".idx") })
        try store.close()
    }

    @Test func aDamagedIndexFileIsFoundEitherWay() throws {
        let memory = InMemoryFileSystem()
        try Self.store(memory)
        try memory.createDirectory("/scratch")
        let index = try #require(try memory.contentsOfDirectory(Self.root + "/index").filter { $0.hasSuffix(".idx") }.sorted().first)
        let path = Self.root + "/index/" + index
        var bytes = try #require(memory.bytes(of: path))
        // An entry's record length changed and the block's CRC fixed: only a rebuild
        // tells the file from its segment.
        bytes[4 + 29] ^= 0x01
        let body = 4 + Int(UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24) * 35
        let crc = CRC32C.checksum(bytes[0..<body])
        for i in 0..<4 { bytes[body + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        try memory.setBytes(bytes, of: path)
        for scratch in ["/scratch", nil] {
            let store = try LogStore.open(at: Self.root, options: Self.readOnly(scratch: scratch), fileSystem: memory, logger: .quiet)
            let report = try store.verify()
            #expect(!report.isSound, "scratch \(scratch ?? "none")")
            #expect(report.problems.contains { $0.message.contains("disagrees with its segment") }, "\(report)")
            try store.close()
        }
        #expect(try memory.contentsOfDirectory("/scratch").isEmpty)
    }
    /// An index file whose block checksum fails is rebuilt in memory by a read-only
    /// open, which cannot write it: verify still reports the file on disk, whichever
    /// file it is and whether open or a read met the damage. A store open for writing
    /// rewrites it when a read meets the damage, and then the store verifies sound.
    @Test func anIndexFileRebuiltInMemoryIsStillReported() throws {
        let memory = InMemoryFileSystem()
        try Self.store(memory)
        let files = try memory.contentsOfDirectory(Self.root + "/index").filter { $0.hasSuffix(".idx") }.sorted()
        try #require(files.count >= 2)
        for name in files {
            let damaged = InMemoryFileSystem()
            try Self.store(damaged)
            let path = Self.root + "/index/" + name
            var bytes = try #require(damaged.bytes(of: path))
            bytes[4 + 29] ^= 0x01 // an entry's byte, its block's checksum left as it was
            try damaged.setBytes(bytes, of: path)
            let store = try LogStore.open(at: Self.root, options: Self.readOnly(scratch: nil), fileSystem: damaged, logger: .quiet)
            for key in UInt64(1)...200 { _ = try store.get(RecordKey(key)) }
            let report = try store.verify()
            #expect(report.problems.contains { $0.path == path }, "\(name): \(report)")
            try store.close()
            let writer = try LogStore.open(at: Self.root, fileSystem: damaged, logger: .quiet)
            for key in UInt64(1)...200 { _ = try writer.get(RecordKey(key)) }
            try writer.close()
            let repaired = try LogStore.open(at: Self.root, options: Self.readOnly(scratch: nil), fileSystem: damaged, logger: .quiet)
            for key in UInt64(1)...200 { _ = try repaired.get(RecordKey(key)) }
            #expect(try repaired.verify().isSound, "\(name)")
            try repaired.close()
        }
    }
}
