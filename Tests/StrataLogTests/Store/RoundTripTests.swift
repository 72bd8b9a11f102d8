import Testing
import StrataTestSupport
@testable import StrataLog

@Suite struct RoundTripTests {
    @Test(arguments: [true, false])
    func manyKeysVersionsAndTombstonesSurviveReopen(compress: Bool) throws {
        let dir = try TemporaryDirectory("roundtrip")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.compressRecords = compress
        options.segmentSizeLimit = 64 << 10 // many segments, so hints are exercised
        var expected: [UInt64: [UInt8]] = [:]
        do {
            let store = try LogStore.open(at: dir.path, options: options)
            for round in 0..<5 {
                var batch = WriteBatch()
                for key in UInt64(0)..<400 where (key + UInt64(round)) % 3 != 0 {
                    let value = LogFixtures.value(key, version: round, size: 20 + Int(key % 200))
                    batch.put(RecordKey(key), value: value)
                    expected[key] = value
                }
                for key in stride(from: UInt64(round), to: 400, by: 37) {
                    batch.delete(RecordKey(key))
                    expected[key] = nil
                }
                try store.commit(batch)
            }
            #expect(store.count == expected.count)
            try store.close()
        }
        let store = try LogStore.open(at: dir.path, options: options)
        defer { try? store.close() }
        #expect(store.count == expected.count)
        for key in UInt64(0)..<400 {
            #expect(try store.get(RecordKey(key))?.value == expected[key])
        }
        #expect(try store.keys() == expected.keys.sorted().map { RecordKey($0) })
        let files = try POSIXFileSystem().contentsOfDirectory(dir.appending("segments"))
        #expect(files.count >= 2)
    }

    @Test func blobsRoundTripCompressedAndNot() throws {
        let dir = try TemporaryDirectory("blobs")
        defer { dir.remove() }
        let text = Array(String(repeating: "compressible text ", count: 4000).utf8)
        let noise = LogFixtures.noise(100_000, seed: 7)
        let refs: [BlobRef]
        do {
            let store = try LogStore.open(at: dir.path)
            refs = [try store.writeBlob(text), try store.writeBlob(noise), try store.writeBlob([])]
            #expect(refs[0].length < UInt64(text.count))
            #expect(refs[1].length == UInt64(noise.count))
            var batch = WriteBatch()
            batch.put(RecordKey(1), value: [1], blobs: refs)
            try store.commit(batch)
            try store.close()
        }
        let store = try LogStore.open(at: dir.path)
        defer { try? store.close() }
        let record = try #require(try store.get(RecordKey(1)))
        #expect(record.blobs == refs)
        #expect(try store.readBlob(refs[0]) == text)
        #expect(try store.readBlob(refs[1]) == noise)
        #expect(try store.readBlob(refs[2]) == [])
        #expect(store.statistics.blobBytesRead > 100_000)
    }

    @Test func termsFindKeysByValueAndRange() throws {
        let dir = try TemporaryDirectory("terms")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path)
        var batch = WriteBatch()
        for key in UInt64(1)...10 {
            batch.put(RecordKey(key), value: [], terms: [IndexTerm(index: 1, value: [UInt8(key % 3)])])
        }
        try store.commit(batch)
        #expect(try store.keys(for: IndexTerm(index: 1, value: [0])) == [3, 6, 9].map { RecordKey($0) })
        var update = WriteBatch()
        update.put(RecordKey(3), value: [], terms: [IndexTerm(index: 1, value: [2])])
        update.delete(RecordKey(6))
        try store.commit(update)
        #expect(try store.keys(for: IndexTerm(index: 1, value: [0])) == [RecordKey(9)])
        #expect(try store.keys(index: 1, from: [1], through: [2]).count == 8)
        try store.close()
        let reopened = try LogStore.open(at: dir.path)
        #expect(try reopened.keys(for: IndexTerm(index: 1, value: [2])).contains(RecordKey(3)))
        try reopened.close()
    }

    @Test func secondWriterIsRefusedWithLockedError() throws {
        let dir = try TemporaryDirectory("lock")
        defer { dir.remove() }
        let first = try LogStore.open(at: dir.path)
        #expect(throws: StrataError.self) { try LogStore.open(at: dir.path) }
        do {
            _ = try LogStore.open(at: dir.path)
        } catch let error as StrataError {
            #expect(error.code == .storeLocked)
            #expect(error.message.contains("locked"))
        }
        try first.close()
        try LogStore.open(at: dir.path).close()
    }
}
