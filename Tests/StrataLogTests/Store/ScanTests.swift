import Testing
import StrataTestSupport
@testable import StrataLog

/// `scan` reads the records of its walk of the index directly: newest live versions,
/// in key order, within the range, in batches of at most the size asked — across
/// sealed segments (index files) and the active one (the overlay), before and after
/// reopening.
@Suite struct ScanTests {
    @Test(arguments: [true, false])
    func scanGivesTheNewestLiveVersionsInKeyOrder(compress: Bool) throws {
        let dir = try TemporaryDirectory("scan")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.compressRecords = compress
        options.segmentSizeLimit = 32 << 10
        var expected: [UInt64: [UInt8]] = [:]
        func check(_ store: LogStore) throws {
            let range = RecordKey(50)..<RecordKey(350)
            var seen: [(UInt64, [UInt8])] = []
            var batches = 0
            try store.scan(range, batchSize: 64) { records in
                #expect(records.count <= 64)
                batches += 1
                seen += records.map { ($0.key.rawValue, $0.value) }
            }
            let wanted = expected.filter { range.contains(RecordKey($0.key)) }.sorted { $0.key < $1.key }
            #expect(seen.map(\.0) == wanted.map(\.key))
            #expect(seen.map(\.1) == wanted.map(\.value))
            #expect(batches >= wanted.count / 64)
            var all = 0
            try store.scan(nil, batchSize: 1_000) { all += $0.count }
            #expect(all == expected.count)
        }
        do {
            let store = try LogStore.open(at: dir.path, options: options)
            for round in 0..<4 {
                var batch = WriteBatch()
                for key in UInt64(0)..<400 where (key + UInt64(round)) % 3 != 0 {
                    let value = LogFixtures.value(key, version: round, size: 20 + Int(key % 150))
                    batch.put(RecordKey(key), value: value)
                    expected[key] = value
                }
                for key in stride(from: UInt64(round), to: 400, by: 29) {
                    batch.delete(RecordKey(key))
                    expected[key] = nil
                }
                try store.commit(batch)
            }
            try check(store)
            try store.close()
        }
        let store = try LogStore.open(at: dir.path, options: options)
        defer { try? store.close() }
        try check(store)
    }
}
