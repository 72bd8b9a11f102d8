import Testing
@testable import StrataLog

/// `RecordView.copy(into:)` makes the same record `record()` makes, whatever the
/// record it writes over held (longer or shorter bytes, blobs, terms, a tombstone),
/// and in that record's own storage when it holds it alone.
@Suite struct RecordViewCopyTests {
    static func withView<T>(key: UInt64, bytes: [UInt8], blobs: [BlobRef], _ body: (RecordView) throws -> T) rethrows -> T {
        try bytes.withUnsafeBytes { value in
            try blobs.withUnsafeBufferPointer { blobs in
                try body(RecordView(key: RecordKey(key), sequence: key * 10, value: value, blobs: blobs))
            }
        }
    }

    @Test func copiesAreTheRecordItself() throws {
        let blob = BlobRef(file: 3, offset: 64, length: 900, checksum: 0xC0FFEE)
        let olds = [
            Record(key: RecordKey(1), sequence: 1, value: Array(repeating: 7, count: 300), blobs: [blob], terms: [IndexTerm(index: 2, value: [1, 2])]),
            Record(key: RecordKey(2), sequence: 2, value: [9]),
            Record(key: RecordKey(3), sequence: 3, isTombstone: true),
        ]
        let news: [([UInt8], [BlobRef])] = [(Array(0..<200), []), ([], []), ([5, 6, 7], [blob, blob])]
        for old in olds {
            for (i, (bytes, blobs)) in news.enumerated() {
                try Self.withView(key: UInt64(40 + i), bytes: bytes, blobs: blobs) { view in
                    var record = old
                    try view.copy(into: &record)
                    #expect(record == (try view.record()))
                }
            }
        }
    }

    @Test func aRecordHeldAloneKeepsItsStorage() throws {
        var record = Record(key: RecordKey(1), sequence: 1, value: Array(repeating: 7, count: 300))
        let storage = record.value.withUnsafeBufferPointer { $0.baseAddress }
        try Self.withView(key: 2, bytes: Array(0..<100), blobs: []) { view in try view.copy(into: &record) }
        #expect(record.value == Array(0..<100))
        #expect(record.value.withUnsafeBufferPointer { $0.baseAddress } == storage)
    }
}
