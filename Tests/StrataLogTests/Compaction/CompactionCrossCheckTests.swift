import Testing
import StrataTestSupport
@testable import StrataLog

/// Compaction copies a record only when the index entry the reads use tells the same
/// story: an index file edited with its block checksum recomputed, so that reads pass
/// its checks, must stop compaction with `.corrupt` and leave the store as it was —
/// never bring a deleted version back, never drop the current one.
@Suite struct CompactionCrossCheckTests {
    static var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 1500
        options.compressRecords = false
        return options
    }

    /// Keys 0…49 in ten transactions (segment 1 holds the first ones), then key 1
    /// written again so that segment 1 has garbage and compaction takes it.
    static func makeStore(_ path: String) throws -> [UInt64: [UInt8]] {
        let store = try LogStore.open(at: path, options: options, logger: .quiet)
        defer { try? store.close() }
        var expected = try ManifestCounterTests.fill(store, transactions: 10)
        var batch = WriteBatch()
        expected[1] = LogFixtures.value(1001, size: 60)
        batch.put(RecordKey(1), value: expected[1]!)
        try store.commit(batch)
        return expected
    }

    /// Edits entry `entry` of segment 1's first data block (entries without blob
    /// references: 35 bytes each after the block's count), recomputing the block CRC.
    static func editFirstDataBlock(_ path: String, entry: Int, _ edit: (inout [UInt8], Int) -> Void) throws {
        let file = StorePaths(path).indexFile(1)
        var bytes = try FileBytes.read(file)
        let count = Int(StoreSurgery.u32(bytes, at: 0))
        #expect(entry < count)
        edit(&bytes, 4 + 35 * entry)
        let end = 4 + 35 * count
        StoreSurgery.putU32(CRC32C.checksum(bytes[0..<end]), at: end, in: &bytes)
        try FileBytes.write(bytes, to: file)
    }

    static func expectCompactionRefusesAndChangesNothing(_ path: String, before read: (LogStore) throws -> Void = { _ in }) throws {
        let segmentsBefore = try StoreSurgery.manifest(path).segments
        let store = try LogStore.open(at: path, options: options, logger: .quiet)
        try read(store)
        let error = #expect(throws: StrataError.self) { try store.compact(force: true) }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        #expect(error?.path == StorePaths(path).segment(1), "\(String(describing: error))")
        try store.close()
        // The roll before compaction may seal the active segment; the sealed ones stay.
        let after = try StoreSurgery.manifest(path).segments.filter { $0.state == .sealed }.map(\.id)
        for info in segmentsBefore where info.state == .sealed { #expect(after.contains(info.id), "segment \(info.id) went") }
    }

    @Test func aPutWhoseEntrySaysTombstoneStopsCompaction() throws {
        let dir = try TemporaryDirectory("compact-kind")
        defer { dir.remove() }
        _ = try Self.makeStore(dir.path)
        try Self.editFirstDataBlock(dir.path, entry: 0) { bytes, at in
            #expect(StoreSurgery.u64(bytes, at: at) == 0)
            bytes[at + 16] = 2  // kind: put → tombstone
        }
        try Self.expectCompactionRefusesAndChangesNothing(dir.path)
        // The record is still there for a repair: verify names the index file.
        let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
        defer { try? store.close() }
        #expect(try !store.verify().isSound)
    }

    @Test func anEntryWhoseFrameLengthIsOffByOneStopsCompactionEvenWhenTheFrameIsCached() throws {
        let dir = try TemporaryDirectory("compact-location")
        defer { dir.remove() }
        let expected = try Self.makeStore(dir.path)
        try Self.editFirstDataBlock(dir.path, entry: 0) { bytes, at in
            let frameLength = StoreSurgery.u32(bytes, at: at + 21)
            StoreSurgery.putU32(frameLength + 1, at: at + 21, in: &bytes)
        }
        try Self.expectCompactionRefusesAndChangesNothing(dir.path) { (store: LogStore) throws -> Void in
            // Key 2 shares key 0's frame: the frame is cached, and key 0 then reads
            // without its frame length compared.
            #expect(try store.get(RecordKey(2))?.value == expected[2])
            #expect(try store.get(RecordKey(0))?.value == expected[0])
        }
    }

    @Test func aSoundStoreWithAKeyWrittenTwiceInOneTransactionCompacts() throws {
        let dir = try TemporaryDirectory("compact-twice")
        defer { dir.remove() }
        var expected = try Self.makeStore(dir.path)
        let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
        defer { try? store.close() }
        var batch = WriteBatch()
        batch.put(RecordKey(3), value: [1])
        batch.put(RecordKey(3), value: [2])
        expected[3] = [2]
        try store.commit(batch)
        try store.compact(force: true)
        try store.compact(force: true)
        try ManifestCounterTests.expectAll(store, expected)
        #expect(try store.verify().isSound)
    }
}
