import Testing
import Foundation
import StrataTestSupport
@testable import StrataLog

/// The record rewriter compaction applies to the records it copies (the object layer
/// writes records of older layouts in the current one through it, FORMAT.md §8).
@Suite struct CompactionRewriterTests {
    @Test func rewrittenRecordsKeepKeySequenceAndTermsAndTheCountersFollowTheirBytes() throws {
        let dir = try TemporaryDirectory("compact-rewriter")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSizeLimit = 8 << 10
        let term = IndexTerm(index: 9, value: [1, 2])
        var sequences: [RecordKey: UInt64] = [:]
        do {
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            for round in 0..<3 {
                var batch = WriteBatch()
                for key in UInt64(1)...120 where round == 0 || key % 3 == UInt64(round) {
                    batch.put(RecordKey(key), value: Array("v\(round)-\(key)".utf8), terms: key % 2 == 0 ? [term] : [])
                }
                let sequence = try store.commit(batch)
                for key in UInt64(1)...120 where round == 0 || key % 3 == UInt64(round) { sequences[RecordKey(key)] = sequence }
            }
            // Every record whose value starts with "v0" gets a longer one; others stay.
            store.setRecordRewriter { record in
                guard record.value.starts(with: Array("v0".utf8)) else { return nil }
                var rewritten = record
                rewritten.value = Array("rewritten:".utf8) + record.value
                return rewritten
            }
            try store.sealActiveSegment()
            let report = try store.compact(force: true)
            let v0Keys = (UInt64(1)...120).filter { $0 % 3 == 0 }
            #expect(report.recordsReencoded == v0Keys.count, "\(report)")
            #expect(try store.verify().isSound)
            let usage = store.usage
            var live: Int64 = 0
            for key in UInt64(1)...120 {
                let record = try #require(try store.get(RecordKey(key)))
                #expect(record.sequence == sequences[RecordKey(key)])
                live += Int64(record.value.count)
            }
            #expect(usage.liveRecordBytes > live, "the counters cover the rewritten, longer records (and their headers)")
            #expect(try store.keys(for: term).count == 60, "terms kept")
            try store.close()
        }
        let reopened = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? reopened.close() }
        for key in UInt64(1)...120 {
            let value = try #require(try reopened.get(RecordKey(key))).value
            let round = key % 3 == 0 ? 0 : Int(key % 3)
            let plain = Array("v\(round)-\(key)".utf8)
            #expect(value == (round == 0 ? Array("rewritten:".utf8) + plain : plain), "key \(key)")
        }
        #expect(try reopened.keys(for: term).count == 60)
        #expect(try reopened.verify().isSound)
    }
}
