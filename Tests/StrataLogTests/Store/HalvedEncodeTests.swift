import Testing
import StrataTestSupport
@testable import StrataLog

/// A commit of `LogStore.halvedEncodeRecords` records or more encodes its two halves
/// on two threads: the records must land in order, each at the location the index
/// gives it, with its terms, in both the running store and the one replayed at open.
@Suite struct HalvedEncodeTests {
    /// Keys 0..<count, sizes from a few bytes to past a block, every seventh a
    /// tombstone of an earlier commit's key, every record with a term.
    private static func fill(_ batch: inout WriteBatch, count: Int, version: Int) -> [UInt64: [UInt8]] {
        var written: [UInt64: [UInt8]] = [:]
        for key in UInt64(0)..<UInt64(count) {
            if version > 0 && key % 7 == 0 {
                batch.delete(RecordKey(key))
                written[key] = []
                continue
            }
            let size = key % 997 == 0 ? 70_000 : 3 + Int(key % 300)
            let value = LogFixtures.value(key, version: version, size: size)
            batch.put(RecordKey(key), value: value, terms: [IndexTerm(index: 1, value: [UInt8(key % 251)])])
            written[key] = value
        }
        return written
    }

    @Test(arguments: [true, false])
    func aLargeCommitReadsBackInOrderBeforeAndAfterReopen(compress: Bool) throws {
        let dir = try TemporaryDirectory("halves")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.compressRecords = compress
        let count = LogStore.halvedEncodeRecords * 2 + 3
        var expected: [UInt64: [UInt8]] = [:]
        func check(_ store: LogStore) throws {
            #expect(store.count == expected.values.filter { !$0.isEmpty }.count)
            for key in UInt64(0)..<UInt64(count) {
                let value = expected[key].flatMap { $0.isEmpty ? nil : $0 }
                #expect(try store.get(RecordKey(key))?.value == value, "key \(key)")
            }
            let withTerm = try store.keys(for: IndexTerm(index: 1, value: [5])).map(\.rawValue)
            #expect(withTerm == expected.keys.sorted().filter { $0 % 251 == 5 && expected[$0]?.isEmpty == false })
            let report = try store.verify()
            #expect(report.problems.isEmpty, "\(report)")
        }
        do {
            let store = try LogStore.open(at: dir.path, options: options)
            for version in 0..<2 {
                var batch = WriteBatch()
                expected.merge(Self.fill(&batch, count: count, version: version)) { $1 }
                try store.commit(batch)
                try check(store)
            }
            try store.close()
        }
        let store = try LogStore.open(at: dir.path, options: options)
        defer { try? store.close() }
        try check(store)
    }

    /// The halves give the same records at the same places as one pass would, apart
    /// from where the first half's last block ends.
    @Test func halvesDecodeToTheSameRecordsAsOnePass() throws {
        let dir = try TemporaryDirectory("halves-same")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path)
        defer { try? store.close() }
        var batch = WriteBatch()
        _ = Self.fill(&batch, count: LogStore.halvedEncodeRecords + 17, version: 0)
        let records = batch.pending
        let start: Int64 = 4096
        let (halved, halvedAt, halvedFrames) = try store.encodeFramesInHalves(records, sequence: 9, segmentID: 3, startingAt: start)
        let (whole, wholeAt, wholeFrames) = try store.encodeFrames(records, sequence: 9, segmentID: 3, startingAt: start)
        #expect(halvedAt.count == records.count && wholeAt.count == records.count)
        #expect(halvedFrames >= wholeFrames && halvedFrames <= wholeFrames + 1)
        func record(_ bytes: [UInt8], _ location: RecordLocation) throws -> Record {
            let frameStart = Int(Int64(location.frameOffset) - start)
            let frame = Array(bytes[frameStart..<(frameStart + Int(location.frameLength))])
            let header = try #require(FrameCodec.parseHeader(frame))
            #expect(header.length == frame.count - Format.frameHeaderSize)
            let payload = try FrameCodec.rawPayload(flags: header.flags, stored: frame[Format.frameHeaderSize...], path: "test", offset: Int64(location.frameOffset))
            var inBlock = ByteReader(Array(payload[Int(location.recordOffset)..<Int(location.recordOffset + location.recordLength)]))
            return try RecordCodec.decode(&inBlock)
        }
        for i in records.indices {
            #expect(halvedAt[i].segment == 3)
            let a = try record(halved, halvedAt[i]), b = try record(whole, wholeAt[i])
            #expect(a == b)
            #expect(a.key == records[i].key && a.sequence == 9 && a.value == records[i].value && a.terms == records[i].terms)
        }
    }

    /// A record too large for a frame in the second half fails the whole commit:
    /// nothing of it is visible, and the store commits on.
    @Test func aRecordTooLargeInTheSecondHalfFailsTheWholeCommit() throws {
        let dir = try TemporaryDirectory("halves-large")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path)
        defer { try? store.close() }
        var batch = WriteBatch()
        let count = LogStore.halvedEncodeRecords + 10
        for key in 0..<count {
            batch.put(RecordKey(UInt64(key)), value: key == count - 2 ? [UInt8](repeating: 1, count: Format.maxFramePayload) : [UInt8(key % 256)])
        }
        let error = #expect(throws: StrataError.self) { try store.commit(batch) }
        #expect(error?.code == .invalidArgument)
        #expect(store.count == 0)
        #expect(try store.get(RecordKey(0)) == nil)
        var small = WriteBatch()
        small.put(RecordKey(1), value: [7])
        try store.commit(small)
        #expect(try store.get(RecordKey(1))?.value == [7])
    }
}
