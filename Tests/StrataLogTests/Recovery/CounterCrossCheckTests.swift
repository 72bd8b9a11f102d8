import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// The manifest's counters (FORMAT.md §6.1) answer `count` and steer compaction
/// without reading a key, so they are cross-checked wherever a recount is at hand:
/// `verify` recounts every figure, an open that rebuilt an index file recounts the
/// live keys, and a manifest whose version was lowered below its sealed files' is
/// refused rather than read by an older format's rules.
@Suite struct CounterCrossCheckTests {
    @Test(arguments: ["live keys", "live record bytes"])
    func verifyReportsAnEditedCounter(counter: String) throws {
        let dir = try TemporaryDirectory("counter-verify")
        defer { dir.remove() }
        let expected = try FieldEditTests.makeStore(dir.path)
        let sealed = try #require(try FieldEditTests.sealedIDs(dir.path).first)
        try StoreSurgery.editManifest(dir.path) { m in
            if counter == "live keys" { m.counters.liveCountByPrefix[0, default: 0] += 1 } else { m.counters.liveBytesBySegment[sealed, default: 0] += 7 }
        }
        let store = try LogStore.open(at: dir.path, options: FieldEditTests.options, logger: .quiet)
        defer { try? store.close() }
        try ManifestCounterTests.expectAll(store, expected)
        let report = try store.verify()
        #expect(report.problems.count == 1, "\(report)")
        #expect(report.problems.first?.context["counter"] == counter, "\(report)")
        #expect(report.problems.first?.path == StorePaths(dir.path).manifest)
    }

    @Test func aSoundStoreHasCountersThatVerifyAgreesWith() throws {
        let dir = try TemporaryDirectory("counter-sound")
        defer { dir.remove() }
        _ = try FieldEditTests.makeStore(dir.path)
        let store = try LogStore.open(at: dir.path, options: FieldEditTests.options, logger: .quiet)
        defer { try? store.close() }
        var batch = WriteBatch()
        batch.delete(RecordKey(3))
        batch.put(RecordKey(7), value: [7])
        try store.commit(batch)
        #expect(try store.verify().isSound)
        try store.compact(force: true)
        #expect(try store.verify().isSound)
    }

    /// A put turned into a tombstone inside a sealed segment (its frame checksum
    /// recomputed) keeps the segment's live bytes; with the segment's index file lost,
    /// the rebuilt one agrees with the record, and only the live-key count notices.
    @Test func aKindEditedInASegmentWhoseIndexFileIsRebuiltIsRefused() throws {
        let dir = try TemporaryDirectory("counter-rebuild")
        defer { dir.remove() }
        _ = try FieldEditTests.makeStore(dir.path)
        let sealed = try #require(try FieldEditTests.sealedIDs(dir.path).first)
        let segment = StoreSurgery.segment(dir.path, sealed)
        let frame = try #require(try StoreSurgery.frames(segment).firstIndex { $0.type == 1 })
        try StoreSurgery.editFrame(segment, frame) { payload in
            let first = (try? StoreSurgery.recordOffsets(payload).first) ?? 0
            #expect(payload[first] == 1)
            payload[first] = 2  // put → tombstone
        }
        try FileManager.default.removeItem(atPath: StorePaths(dir.path).indexFile(sealed))
        let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, options: FieldEditTests.options, logger: .quiet) }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        #expect(error?.context["prefix"] == "0", "\(String(describing: error))")
    }

    @Test func aManifestVersionLoweredBelowItsSealedFilesIsRefused() throws {
        let dir = try TemporaryDirectory("counter-version")
        defer { dir.remove() }
        _ = try FieldEditTests.makeStore(dir.path)
        let manifest = try FileBytes.read(StorePaths(dir.path).manifest)
        for version: UInt32 in [1, 2] {
            try StoreSurgery.editManifest(dir.path) { $0.version = version }
            let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, options: FieldEditTests.options, logger: .quiet) }
            #expect(error?.code == .corrupt, "version \(version): \(String(describing: error))")
        }
        try FileBytes.write(manifest, to: StorePaths(dir.path).manifest)
        let store = try LogStore.open(at: dir.path, options: FieldEditTests.options, logger: .quiet)
        #expect(try store.verify().isSound)
        try store.close()
    }
}
