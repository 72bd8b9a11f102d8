import Testing
@testable import StrataLog

/// Range reads list live keys in order whether or not the index holds tombstones:
/// without any it answers from the sorted keys alone, with some it checks each key.
@Suite struct KeyIndexTests {
    static func location(_ n: Int) -> RecordLocation {
        RecordLocation(segment: 1, frameOffset: UInt32(48 + n * 100), frameLength: 100, recordOffset: 4, recordLength: 50)
    }

    static func put(_ index: inout KeyIndex, _ key: UInt64, sequence: UInt64, tombstone: Bool = false) {
        index.apply(key: RecordKey(key), sequence: sequence, isTombstone: tombstone, location: location(Int(sequence)),
                    blobs: [], terms: [], previousTerms: { _ in [] })
    }

    static func keys(_ raw: [UInt64]) -> [RecordKey] { raw.map { RecordKey($0) } }

    @Test func rangesAndPagesAreTheLiveKeysWithAndWithoutTombstones() {
        var index = KeyIndex()
        for key: UInt64 in [5, 1, 9, 3, 7] { Self.put(&index, key, sequence: key) }
        #expect(index.keys(in: nil) == Self.keys([1, 3, 5, 7, 9]))
        #expect(index.keys(in: RecordKey(3)..<RecordKey(8)) == Self.keys([3, 5, 7]))
        #expect(index.keys(in: nil, after: RecordKey(3), limit: 2) == Self.keys([5, 7]))
        #expect(index.keys(in: nil, after: nil, limit: 0).isEmpty)

        Self.put(&index, 5, sequence: 20, tombstone: true)
        #expect(index.count == 4)
        #expect(index.keys(in: nil) == Self.keys([1, 3, 7, 9]))
        #expect(index.keys(in: nil, after: RecordKey(3), limit: 2) == Self.keys([7, 9]))
        #expect(index.keys(in: nil, after: nil, limit: 0).isEmpty)

        // The tombstone dropped by compaction: no tombstone left, the fast path again.
        index.forgetTombstone(key: RecordKey(5), sequence: 20)
        #expect(index.keys(in: nil) == Self.keys([1, 3, 7, 9]))
        #expect(index.keys(in: nil, after: RecordKey(1), limit: 10) == Self.keys([3, 7, 9]))

        // A stale version (older than the index's) changes nothing.
        Self.put(&index, 9, sequence: 2)
        #expect(index.entry(RecordKey(9))?.sequence == 9)
        #expect(index.count == 4)
    }
}
