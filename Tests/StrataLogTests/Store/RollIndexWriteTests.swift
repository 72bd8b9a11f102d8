import Testing
import StrataTestSupport
@testable import StrataLog

/// A roll writes its index file as the encoder hands the bytes over, a chunk to each
/// write, and the file reads back whole.
@Suite struct RollIndexWriteTests {
    @Test func aRollWritesAnIndexFileOfMegabytesInAFewWrites() throws {
        let faults = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        var options = LogStoreOptions()
        options.durability = .none
        options.overlayEntryLimit = 60_000
        let store = try LogStore.open(at: "/store", options: options, fileSystem: faults, logger: .quiet)
        defer { try? store.close() }
        var batch = WriteBatch()
        for key in UInt64(1)..<60_000 { batch.put(RecordKey(key), value: [UInt8(truncatingIfNeeded: key)], terms: [IndexTerm(index: 1, value: [UInt8(key % 7)])]) }
        try store.commit(batch)
        let writesBefore = faults.count(of: .write)
        // The key that fills the overlay: the commit rolls the segment.
        var last = WriteBatch()
        last.put(RecordKey(60_000), value: [0])
        try store.commit(last)
        let indexFiles = try faults.contentsOfDirectory("/store/index").filter { $0.hasSuffix(".idx") }
        try #require(indexFiles.count == 1)
        let size = try faults.open("/store/index/" + indexFiles[0], mode: .readOnly).size()
        #expect(size > 2 << 20, "an index file the encoder hands over in several chunks")
        #expect(faults.count(of: .write) - writesBefore < 64)
        for key in stride(from: UInt64(1), through: 60_000, by: 997) { #expect(try store.get(RecordKey(key)) != nil) }
        #expect(try store.verify().isSound)
    }
}
