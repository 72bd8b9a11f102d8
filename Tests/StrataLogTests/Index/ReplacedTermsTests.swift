import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// The key index keeps no terms per key: replacing a version reads the old one's terms
/// back from its record. These tests hold the term index exact through overwrites in
/// the same transaction, the active segment, sealed segments with hints, compaction
/// and reopening — and when the replaced record is damaged.
@Suite struct ReplacedTermsTests {
    private static func options() -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 16 << 10 // many sealed segments, so hints replace hints
        options.compressRecords = false // so that the filler below fills them
        return options
    }

    private static func term(_ value: UInt8, index: UInt32 = 1) -> IndexTerm {
        IndexTerm(index: index, value: [value])
    }

    /// Every (index, value) the model holds, and some it does not, answer as the model says.
    private static func expectMatches(_ store: LogStore, _ model: [UInt64: [IndexTerm]], _ label: String) {
        for index: UInt32 in [1, 2] {
            for value: UInt8 in 0..<6 {
                let term = IndexTerm(index: index, value: [value])
                let expected = model.filter { $0.value.contains(term) }.keys.sorted().map { RecordKey($0) }
                #expect(store.keys(for: term) == expected, "\(label): index \(index) value \(value)")
            }
        }
    }

    @Test func overwritesDeletesAndReopensKeepTheTermIndexExact() throws {
        let dir = try TemporaryDirectory("replaced-terms")
        defer { dir.remove() }
        var model: [UInt64: [IndexTerm]] = [:]
        var generator = SystemRandomNumberGenerator()
        var store = try LogStore.open(at: dir.path, options: Self.options())
        for round in 0..<40 {
            var batch = WriteBatch()
            for _ in 0..<30 {
                let key = UInt64.random(in: 1...60, using: &generator)
                switch Int.random(in: 0..<6, using: &generator) {
                case 0:
                    batch.delete(RecordKey(key))
                    model[key] = nil
                case 1:
                    // No terms: the next overwrite must not look for any.
                    batch.put(RecordKey(key), value: Array(repeating: UInt8(round), count: 200))
                    model[key] = []
                default:
                    // Keys often appear twice in one batch, with other terms each time.
                    var terms = [Self.term(UInt8.random(in: 0..<6, using: &generator))]
                    if Bool.random(using: &generator) { terms.append(Self.term(UInt8.random(in: 0..<6, using: &generator), index: 2)) }
                    batch.put(RecordKey(key), value: Array(repeating: UInt8(round), count: 200), terms: terms)
                    model[key] = terms
                }
            }
            try store.commit(batch)
            Self.expectMatches(store, model, "round \(round)")
            if round == 39 {
                #expect(store.state.withLock { $0.manifest.segments.count } >= 3, "the test must replace versions in sealed segments")
            }
            if round % 10 == 9 {
                _ = try store.compact(force: true)
                Self.expectMatches(store, model, "after compaction \(round)")
            }
            if round % 7 == 6 {
                try store.close()
                store = try LogStore.open(at: dir.path, options: Self.options())
                Self.expectMatches(store, model, "reopened at round \(round)")
            }
        }
        try store.close()
        // Without hint files every sealed segment is scanned: the same answers.
        for hint in try FileManager.default.contentsOfDirectory(atPath: dir.appending("index")) {
            try FileManager.default.removeItem(atPath: dir.appending("index/\(hint)"))
        }
        let scanned = try LogStore.open(at: dir.path, options: Self.options())
        defer { try? scanned.close() }
        Self.expectMatches(scanned, model, "reopened by scanning")
    }

    /// Flips a byte inside the frame that holds `key`'s current version.
    private static func damageCurrentVersion(of key: RecordKey, in store: LogStore) throws {
        let location = try #require(store.state.withLock { $0.index.entry(key) }).location
        let path = store.paths.segment(location.segment)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let offset = UInt64(location.frameOffset) + UInt64(location.frameLength) - 1
        try handle.seek(toOffset: offset)
        let byte = try #require(try handle.read(upToCount: 1)).first ?? 0
        try handle.seek(toOffset: offset)
        handle.write(Data([byte ^ 0xFF]))
    }

    @Test func aDamagedReplacedRecordStillLeavesItsTerms() throws {
        let dir = try TemporaryDirectory("replaced-terms-damaged")
        defer { dir.remove() }
        do {
            let store = try LogStore.open(at: dir.path, options: Self.options())
            var batch = WriteBatch()
            batch.put(RecordKey(1), value: [1], terms: [Self.term(3)])
            batch.put(RecordKey(2), value: [2], terms: [Self.term(3)])
            try store.commit(batch)
            // Filler until the segment is sealed: damage in the active segment is
            // refused at open, in a sealed one it is found when the record is read.
            for key in UInt64(100)..<140 {
                var filler = WriteBatch()
                filler.put(RecordKey(key), value: Array(repeating: UInt8(key), count: 1_000))
                try store.commit(filler)
            }
            #expect(store.state.withLock { $0.index.entry(RecordKey(1))?.location.segment } != store.writer.withLock { $0.segmentID })
            try Self.damageCurrentVersion(of: RecordKey(1), in: store)
            var update = WriteBatch()
            update.put(RecordKey(1), value: [1], terms: [Self.term(4)])
            try store.commit(update)
            #expect(store.keys(for: Self.term(3)) == [RecordKey(2)])
            #expect(store.keys(for: Self.term(4)) == [RecordKey(1)])
            try store.close()
        }
        // Reopened, the damaged version is replaced again while the log is replayed.
        let store = try LogStore.open(at: dir.path, options: Self.options())
        defer { try? store.close() }
        #expect(store.keys(for: Self.term(3)) == [RecordKey(2)])
        #expect(store.keys(for: Self.term(4)) == [RecordKey(1)])
    }
}
