import Testing
import StrataTestSupport
@testable import StrataLog

/// The in-place reads queries use: `visitRecords` over keys, over a range, and over
/// keys an index read listed with their locations (`locatedKeys`), each checked
/// against `get` and a plain map across sealed segments, the active one, deletes,
/// reopening and a compaction that retires the segments a listing pointed into.
@Suite struct VisitRecordsTests {
    /// A store of 1,200 keys over four rounds in 32 KiB segments, each key with a term
    /// under index 1 (its value mod 5), some keys deleted; and what it must hold.
    private static func filled(_ dir: TemporaryDirectory, compress: Bool) throws -> (LogStore, [UInt64: [UInt8]]) {
        var options = LogStoreOptions()
        options.compressRecords = compress
        options.segmentSizeLimit = 32 << 10
        let store = try LogStore.open(at: dir.path, options: options)
        var expected: [UInt64: [UInt8]] = [:]
        for round in 0..<4 {
            var batch = WriteBatch()
            for key in UInt64(0)..<1_200 where (key + UInt64(round)) % 3 != 0 {
                let value = LogFixtures.value(key, version: round, size: 20 + Int(key % 150))
                batch.put(RecordKey(key), value: value, terms: [IndexTerm(index: 1, value: [value[0] % 5])])
                expected[key] = value
            }
            for key in stride(from: UInt64(round), to: 1_200, by: 29) {
                batch.delete(RecordKey(key))
                expected[key] = nil
            }
            try store.commit(batch)
        }
        return (store, expected)
    }

    private static func visited(_ store: LogStore, _ located: [LocatedKey]) throws -> [(Int, UInt64, [UInt8])] {
        var seen: [(Int, UInt64, [UInt8])] = []
        try store.visitRecords(located: located) { position, view in
            seen.append((position, view.key.rawValue, Array(view.value)))
            return true
        }
        return seen
    }

    @Test(arguments: [true, false])
    func locatedKeysAreReadWhereTheIndexFoundThem(compress: Bool) throws {
        let dir = try TemporaryDirectory("visit-located")
        defer { dir.remove() }
        let (store, expected) = try Self.filled(dir, compress: compress)
        func check(_ store: LogStore) throws {
            for term in UInt8(0)..<5 {
                let located = try store.locatedKeys(index: 1, from: [term], through: [term])
                #expect(located.map(\.key) == (try store.keys(for: IndexTerm(index: 1, value: [term]))))
                let wanted = expected.filter { $0.value[0] % 5 == term }.sorted { $0.key < $1.key }
                #expect(located.map(\.key.rawValue) == wanted.map(\.key))
                let seen = try Self.visited(store, located)
                #expect(seen.map(\.0) == Array(wanted.indices))
                #expect(seen.map(\.1) == wanted.map(\.key))
                #expect(seen.map(\.2) == wanted.map(\.value))
            }
            // Keys the caller adds carry no location: looked up when visited, the
            // absent and the deleted skipped, positions kept.
            let asked: [UInt64] = [1, 2, 3, 29, 58, 399, 1_199, 1_200, 10_000]
            let seen = try Self.visited(store, asked.map { LocatedKey(RecordKey($0)) })
            let live = asked.enumerated().filter { expected[$0.element] != nil }
            #expect(seen.map(\.0) == live.map(\.offset))
            #expect(seen.map(\.2) == live.map { expected[$0.element] ?? [] })
        }
        try check(store)
        try store.close()
        let reopened = try LogStore.open(at: dir.path, options: LogStoreOptions())
        defer { try? reopened.close() }
        try check(reopened)
    }

    /// A compaction between the listing and the visit retires the segments the listed
    /// locations point into: those keys are looked up again, and a key deleted in
    /// between is then skipped.
    @Test func aListingOutlivesTheCompactionOfItsSegments() throws {
        let dir = try TemporaryDirectory("visit-compacted")
        defer { dir.remove() }
        let (store, filled) = try Self.filled(dir, compress: true)
        var expected = filled
        defer { try? store.close() }
        let located = try store.locatedKeys(index: 1, from: nil, through: nil)
        #expect(located.count == expected.count)
        var delete = WriteBatch()
        for key in located.prefix(40).map(\.key) where key.rawValue % 2 == 0 {
            delete.delete(key)
            expected[key.rawValue] = nil
        }
        try store.commit(delete)
        let report = try store.compact(force: true)
        #expect(report.segmentsCompacted > 0)
        let seen = try Self.visited(store, located)
        let live = located.enumerated().filter { expected[$0.element.key.rawValue] != nil }
        #expect(seen.map(\.0) == live.map(\.offset))
        #expect(seen.map(\.2) == live.map { expected[$0.element.key.rawValue] ?? [] })
        for (_, key, value) in seen { #expect(try store.get(RecordKey(key))?.value == value) }
    }

    @Test func aRangeVisitGivesTheLiveRecordsInKeyOrderAndSkipsUnwantedKeys() throws {
        let dir = try TemporaryDirectory("visit-range")
        defer { dir.remove() }
        let (store, expected) = try Self.filled(dir, compress: true)
        defer { try? store.close() }
        // Longer than a visit's page, so that the walk resumes after a page.
        let range = RecordKey(7)..<RecordKey(1_190)
        var seen: [(UInt64, [UInt8])] = []
        try store.visitRecords(in: range, wants: { $0.rawValue % 4 != 1 }) { view in
            seen.append((view.key.rawValue, Array(view.value)))
            return true
        }
        let wanted = expected.filter { range.contains(RecordKey($0.key)) && $0.key % 4 != 1 }.sorted { $0.key < $1.key }
        #expect(seen.map(\.0) == wanted.map(\.key))
        #expect(seen.map(\.1) == wanted.map(\.value))
        var stopped = 0
        try store.visitRecords(in: range) { _ in
            stopped += 1
            return stopped < 10
        }
        #expect(stopped == 10)
    }

    /// `visitRecordRuns` hands over what `visitRecords(in:)` visits, in the same order,
    /// each run's records lying in one block; across sealed segments, the active one,
    /// deletes and a reopen; and it stops inside a run when asked.
    @Test(arguments: [true, false])
    func runsGiveWhatTheRangeVisitGives(compress: Bool) throws {
        let dir = try TemporaryDirectory("visit-runs")
        defer { dir.remove() }
        let (store, expected) = try Self.filled(dir, compress: compress)
        func check(_ store: LogStore) throws {
            for range in [RecordKey(0)..<RecordKey(1_200), RecordKey(7)..<RecordKey(1_190), RecordKey(600)..<RecordKey(601), RecordKey(5_000)..<RecordKey(6_000)] {
                var runs: [[(UInt64, [UInt8])]] = []
                try store.visitRecordRuns(in: range) { views in
                    runs.append(views.map { ($0.key.rawValue, Array($0.value)) })
                    return true
                }
                let wanted = expected.filter { range.contains(RecordKey($0.key)) }.sorted { $0.key < $1.key }
                let seen = runs.flatMap { $0 }
                #expect(seen.map(\.0) == wanted.map(\.key))
                #expect(seen.map(\.1) == wanted.map(\.value))
                #expect(runs.allSatisfy { !$0.isEmpty })
                // Each run is one block's: its records share the location's frame.
                for run in runs {
                    var frames = Set<String>()
                    for (key, _) in run {
                        let location = try #require(try store.locate(RecordKey(key))).0.location
                        frames.insert("\(location.segment)/\(location.frameOffset)")
                    }
                    #expect(frames.count == 1)
                }
            }
            var taken = 0
            try store.visitRecordRuns(in: RecordKey(0)..<RecordKey(1_200)) { views in
                taken += views.count
                return false
            }
            #expect(taken > 0 && taken < expected.count)
        }
        try check(store)
        try store.close()
        let reopened = try LogStore.open(at: dir.path, options: LogStoreOptions())
        defer { try? reopened.close() }
        try check(reopened)
    }

    /// A walk longer than half the cache keeps only its first frames: the frames a
    /// random read warmed stay cached through it, and a walk that fits is cached whole.
    @Test func aLongWalkDoesNotPushOutTheCache() throws {
        let dir = try TemporaryDirectory("visit-scan-cache")
        defer { dir.remove() }
        let store = try Self.storeSixTimesTheCache(in: dir)
        defer { try? store.close() }
        store.resetStatistics()
        _ = try store.get(RecordKey(5))
        #expect(store.statistics.segmentBytesRead == 0, "warmed")

        var walked = 0
        try store.visitRecords(in: RecordKey(1)..<RecordKey(2_001)) { _ in walked += 1; return true }
        #expect(walked == 2_000)
        try Self.expectOnlyTheWarmedFrameKept(store, by: "the walk")

        // A walk that fits the cache is read from the file once, then from the cache.
        try store.visitRecords(in: RecordKey(1)..<RecordKey(60)) { _ in true }
        store.resetStatistics()
        try store.visitRecords(in: RecordKey(1)..<RecordKey(60)) { _ in true }
        #expect(store.statistics.segmentBytesRead == 0)
    }

    /// A scan read in several ranges — a parallel scan's chunks — carries the bytes it
    /// read from one range to the next (`visitRecordRuns(in:scanned:_:)`), so the cache
    /// sees one long walk: the warmed frame stays, the later frames are not kept. Each
    /// range alone is small enough to be cached whole, and counted alone they pushed
    /// the warmed frame out.
    @Test func aScanReadInRangesIsOneWalkToTheCache() throws {
        let dir = try TemporaryDirectory("visit-scan-ranges")
        defer { dir.remove() }
        let store = try Self.storeSixTimesTheCache(in: dir)
        defer { try? store.close() }

        var scanned = 0, walked = 0
        for start in stride(from: UInt64(1), to: 2_001, by: 125) {
            // About 25 KiB each: under half the cache.
            try store.visitRecordRuns(in: RecordKey(start)..<RecordKey(start + 125), scanned: &scanned) { views in
                walked += views.count
                return true
            }
        }
        #expect(walked == 2_000)
        #expect(scanned >= 2_000 * 200)
        try Self.expectOnlyTheWarmedFrameKept(store, by: "the scan")
    }

    /// A sealed store of 2,000 uncompressed records of 200 bytes (about 400 KiB) with a
    /// 64 KiB block cache, more than six times the cache, whose key 5 was just read
    /// (its frame warmed).
    static func storeSixTimesTheCache(in dir: TemporaryDirectory) throws -> LogStore {
        var options = LogStoreOptions()
        options.compressRecords = false
        options.blockCacheBytes = 64 << 10
        let store = try LogStore.open(at: dir.path, options: options)
        do {
            var batch = WriteBatch()
            for key in UInt64(1)...2_000 { batch.put(RecordKey(key), value: LogFixtures.value(key, version: 0, size: 200)) }
            try store.commit(batch)
            try store.sealActiveSegment()
            _ = try store.get(RecordKey(5))
            return store
        } catch {
            try? store.close()
            throw error
        }
    }

    /// After a long walk of `storeSixTimesTheCache`'s records: key 5's warmed frame is
    /// still cached, and the walk's last frames were read without being kept.
    static func expectOnlyTheWarmedFrameKept(_ store: LogStore, by walk: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        store.resetStatistics()
        _ = try store.get(RecordKey(5))
        #expect(store.statistics.segmentBytesRead == 0, "\(walk) kept the warmed frame", sourceLocation: sourceLocation)
        _ = try store.get(RecordKey(1_990))
        #expect(store.statistics.segmentBytesRead > 0, "\(walk)'s last frames were read without being kept", sourceLocation: sourceLocation)
    }
}
