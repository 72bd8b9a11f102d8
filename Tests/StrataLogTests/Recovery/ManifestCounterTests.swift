import Foundation
import Testing
import Logging
import StrataTestSupport
@testable import StrataLog

/// Counters of a manifest whose CRC was recomputed after an edit: an exhausted id
/// does not trap, and a next id that is already in use is raised at open
/// instead of letting a roll create a file over a live segment.
@Suite struct ManifestCounterTests {
    static var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 1500
        options.blobFileSizeLimit = 256 // every blob rolls the blob file
        options.compressRecords = false
        return options
    }

    /// Commits `transactions` of `keysPer` keys each; returns what must read back.
    @discardableResult
    static func fill(_ store: LogStore, from first: Int = 0, transactions: Int, keysPer: Int = 5) throws -> [UInt64: [UInt8]] {
        var expected: [UInt64: [UInt8]] = [:]
        for t in first..<(first + transactions) {
            var batch = WriteBatch()
            for k in 0..<keysPer {
                let key = UInt64(t * keysPer + k)
                let value = LogFixtures.value(key, size: 60)
                batch.put(RecordKey(key), value: value)
                expected[key] = value
            }
            try store.commit(batch)
        }
        return expected
    }

    static func expectAll(_ store: LogStore, _ expected: [UInt64: [UInt8]]) throws {
        for (key, value) in expected {
            #expect(try store.get(RecordKey(key))?.value == value, "key \(key)")
        }
    }

    @Test func anExhaustedSegmentIDIsAnErrorNotATrap() throws {
        let dir = try TemporaryDirectory("counter-seg-max")
        defer { dir.remove() }
        var expected = try { () throws -> [UInt64: [UInt8]] in
            let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
            defer { try? store.close() }
            return try Self.fill(store, transactions: 2)
        }()
        try StoreSurgery.editManifest(dir.path) { $0.nextSegmentID = .max }
        let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
        // Past the segment size limit: the roll after each commit cannot happen, and
        // the commits still succeed.
        expected.merge(try Self.fill(store, from: 2, transactions: 6)) { $1 }
        let error = #expect(throws: StrataError.self) { try store.sealActiveSegment() }
        #expect(error?.code == .limitExceeded)
        #expect(error?.context["field"] == "nextSegmentID")
        let compaction = #expect(throws: StrataError.self) { try store.compact(force: true) }
        #expect(compaction?.code == .limitExceeded)
        try Self.expectAll(store, expected)
        try store.close()
        let reopened = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
        try Self.expectAll(reopened, expected)
        #expect(try reopened.verify().isSound)
        try reopened.close()
    }

    @Test func anExhaustedBlobIDIsAnErrorNotATrap() throws {
        let dir = try TemporaryDirectory("counter-blob-max")
        defer { dir.remove() }
        do {
            // One blob file holding a live blob and a dead one: compaction must roll it
            // and move the live blob, which needs a new blob file id.
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            for (key, seed) in [(UInt64(1), UInt64(1)), (2, 2)] {
                let ref = try store.writeBlob(LogFixtures.noise(2000, seed: seed))
                var batch = WriteBatch()
                batch.put(RecordKey(key), value: [UInt8(key)], blobs: [ref])
                try store.commit(batch)
            }
            var overwrite = WriteBatch()
            overwrite.put(RecordKey(1), value: [9])
            try store.commit(overwrite)
            try store.close()
        }
        try StoreSurgery.editManifest(dir.path) { $0.nextBlobID = .max }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        let error = #expect(throws: StrataError.self) { try store.compact(force: true) }
        #expect(error?.code == .limitExceeded)
        #expect(try store.get(RecordKey(1))?.value == [9])
        let live = try #require(try store.get(RecordKey(2))?.blobs.first)
        #expect(try store.readBlob(live) == LogFixtures.noise(2000, seed: 2))
        var batch = WriteBatch()
        batch.put(RecordKey(2), value: [3])
        try store.commit(batch)
        try store.close()
        let reopened = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(try reopened.get(RecordKey(2))?.value == [3])
        #expect(try reopened.verify().isSound)
        try reopened.close()
    }

    /// nextSegmentID equal to a live segment's id: the next roll would create its
    /// segment over that file, leaving acknowledged keys indexed but unreadable.
    @Test(arguments: ["nextSegmentID", "nextBlobID"])
    func aNextIDAlreadyInUseIsRaisedNotReused(field: String) throws {
        let dir = try TemporaryDirectory("counter-reuse")
        defer { dir.remove() }
        var expected: [UInt64: [UInt8]] = [:]
        do {
            let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
            expected = try Self.fill(store, transactions: 30)
            let ref = try store.writeBlob(LogFixtures.noise(500, seed: 2))
            var batch = WriteBatch()
            batch.put(RecordKey(10_000), value: [7], blobs: [ref])
            try store.commit(batch)
            expected[10_000] = [7]
            try store.close()
        }
        let before = try StoreSurgery.manifest(dir.path)
        #expect(before.segments.count > 3)
        try StoreSurgery.editManifest(dir.path) { m in
            if field == "nextSegmentID" { m.nextSegmentID = m.segments[0].id } else { m.nextBlobID = m.blobFiles[0].id }
        }
        let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
        expected.merge(try Self.fill(store, from: 30, transactions: 30)) { $1 }
        try store.compact(force: true)
        let blob = try store.writeBlob(LogFixtures.noise(500, seed: 3))
        var batch = WriteBatch()
        batch.put(RecordKey(10_001), value: [8], blobs: [blob])
        try store.commit(batch)
        expected[10_001] = [8]
        try store.close()

        let reopened = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
        try Self.expectAll(reopened, expected)
        for key in [UInt64(10_000), 10_001] {
            let refs = try #require(try reopened.get(RecordKey(key))?.blobs)
            #expect(try refs.allSatisfy { !(try reopened.readBlob($0)).isEmpty })
        }
        #expect(try reopened.verify().isSound)
        let after = try StoreSurgery.manifest(dir.path)
        #expect(after.nextSegmentID > after.segments.map(\.id).max() ?? 0)
        #expect(after.nextBlobID > after.blobFiles.map(\.id).max() ?? 0)
        try reopened.close()
    }

    @Test func aManifestListingAnIDTwiceIsRefused() throws {
        let dir = try TemporaryDirectory("counter-twice")
        defer { dir.remove() }
        do {
            let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
            try Self.fill(store, transactions: 10)
            try store.close()
        }
        try StoreSurgery.editManifest(dir.path) { m in
            m.segments.insert(m.segments[0], at: 1)
        }
        let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
        #expect(error?.code == .corrupt)
        #expect(error?.path == dir.path + "/MANIFEST")
    }

    /// Live counters edited to any value (up to 2^64 − 1, CRC recomputed) skew the
    /// usage, the garbage ratios and compaction's choices; they do not trap, and no
    /// record is lost (FORMAT.md §4.8).
    @Test(arguments: [UInt64(1) << 63, UInt64(Int64.max), UInt64.max, UInt64(1) << 48])
    func anyCounterValueSkewsButDoesNotTrap(value: UInt64) throws {
        let dir = try TemporaryDirectory("counter-huge")
        defer { dir.remove() }
        var expected: [UInt64: [UInt8]] = [:]
        do {
            let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
            expected = try Self.fill(store, transactions: 10)
            expected.merge(try Self.fill(store, transactions: 4)) { $1 }
            _ = try store.writeBlob(LogFixtures.noise(300, seed: 1))
            try store.close()
        }
        // Edited on the manifest's bytes: every counter entry's value.
        let path = dir.appending("MANIFEST")
        var m = try StoreSurgery.manifest(dir.path)
        let big = Int64(bitPattern: value)
        for id in m.counters.liveBytesBySegment.keys { m.counters.liveBytesBySegment[id] = big }
        m.counters.liveBytesByBlobFile[1] = big
        for prefix in m.counters.liveCountByPrefix.keys { m.counters.liveCountByPrefix[prefix] = big }
        try FileBytes.write(m.encoded(), to: path)

        let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
        let usage = store.usage
        for ratio in [usage.recordGarbageRatio, usage.blobGarbageRatio, usage.garbageRatio] { #expect((0...1).contains(ratio)) }
        _ = store.count
        _ = try store.keys(in: nil, after: nil, limit: 10)
        try store.compact(force: true)
        try Self.expectAll(store, expected)
        try store.close()
    }

    /// A manifest's maxSequence of 2^64 − 1 (or a commit carrying it): open succeeds and
    /// the next commit is refused with `.limitExceeded` instead of trapping.
    @Test func anExhaustedSequenceRefusesCommits() throws {
        let dir = try TemporaryDirectory("counter-seq-max")
        defer { dir.remove() }
        var expected: [UInt64: [UInt8]] = [:]
        do {
            let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
            expected = try Self.fill(store, transactions: 10)
            try store.close()
        }
        try StoreSurgery.editManifest(dir.path) { m in
            let active = m.segments.firstIndex { $0.state == .active } ?? 0
            m.segments[active].maxSequence = .max
        }
        let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
        #expect(store.lastSequence == .max)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        let error = #expect(throws: StrataError.self) { try store.commit(batch) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.context["limit"] == "sequence")
        try Self.expectAll(store, expected)
        try store.close()
    }

    /// The last commit of the active segment given sequence 2^64 − 1 (records and
    /// commit, CRCs recomputed): it is the newest transaction, so open keeps it, and
    /// the next commit is refused instead of trapping.
    @Test func aCommitAtTheLastSequenceRefusesTheNextCommit() throws {
        let dir = try TemporaryDirectory("counter-seq-commit")
        defer { dir.remove() }
        do {
            var options = Self.options
            options.segmentSizeLimit = 1 << 20
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            try Self.fill(store, transactions: 3)
            try store.close()
        }
        let active = try #require(try StoreSurgery.manifest(dir.path).activeSegment?.id)
        let segment = StoreSurgery.segment(dir.path, active)
        let frames = try StoreSurgery.frames(segment)
        let commits = frames.indices.filter { frames[$0].type == FrameType.commit.rawValue }
        let last = try #require(commits.last), previous = try #require(commits.dropLast().last)
        for index in (previous + 1)..<last {
            try StoreSurgery.editFrame(segment, index) { payload in
                for record in (try? StoreSurgery.recordOffsets(payload)) ?? [] { StoreSurgery.putU64(.max, at: record + 9, in: &payload) }
            }
        }
        try StoreSurgery.editFrame(segment, last) { StoreSurgery.putU64(.max, at: 0, in: &$0) }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(store.lastSequence == .max)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        let error = #expect(throws: StrataError.self) { try store.commit(batch) }
        #expect(error?.code == .limitExceeded)
        try store.close()
    }
}
