import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// Snapshots answer as the store did when taken, across commits, rolls and compaction;
/// a read-only store beside a writer takes in the writer's commits on refresh; a write
/// keyed by sequence lands under its commit's sequence.
@Suite struct SnapshotAndRefreshTests {
    static func options() -> LogStoreOptions {
        var options = LogStoreOptions()
        options.durability = .none
        options.overlayEntryLimit = 64
        options.compactionGarbageRatio = 0.01
        return options
    }

    static func put(_ store: LogStore, _ keys: some Sequence<UInt64>, version: Int) throws {
        var batch = WriteBatch()
        for k in keys {
            batch.put(RecordKey(k), value: LogFixtures.value(k, version: version), blobs: k % 9 == 0 ? [try store.writeBlob(LogFixtures.value(k, version: version, size: 300))] : [],
                      terms: [IndexTerm(index: 1, value: [UInt8(k % 5)])])
        }
        try store.commit(batch)
    }

    @Test func aSnapshotKeepsItsStateThroughCommitsRollsAndCompaction() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: memory)
        for round in 0..<5 { try Self.put(store, (1...100).map { UInt64($0) }, version: round) }
        let before = try LogFixtures.values(of: store)
        let keysWithTerm = try store.keys(for: IndexTerm(index: 1, value: [2]))
        let snapshot = try store.snapshot()
        let sequence = snapshot.lastSequence
        // Overwrites, deletes and new keys, across several rolls, then compaction.
        for round in 5..<12 { try Self.put(store, (50...180).map { UInt64($0) }, version: round) }
        var deletes = WriteBatch()
        for k in 1...30 { deletes.delete(RecordKey(UInt64(k))) }
        try store.commit(deletes)
        let report = try store.compact(force: true)
        #expect(report.segmentsCompacted > 0)
        #expect(try LogFixtures.values(of: snapshot) == before)
        #expect(try snapshot.keys(for: IndexTerm(index: 1, value: [2])) == keysWithTerm)
        #expect(snapshot.lastSequence == sequence)
        #expect(try snapshot.count(in: nil) == 100)
        #expect(try LogFixtures.values(of: store) != before)
        // Read-only: a snapshot refuses writes.
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        #expect { try snapshot.commit(batch) } throws: { ($0 as? StrataError)?.code == .readOnly }
        // Closing the store ends its snapshots.
        let second = try store.snapshot()
        try snapshot.close()
        #expect { try snapshot.get(RecordKey(60)) } throws: { ($0 as? StrataError)?.code == .closed }
        try store.close()
        #expect { try second.get(RecordKey(60)) } throws: { ($0 as? StrataError)?.code == .closed }
    }

    @Test func aReadOnlyStoreTakesInAWritersCommitsOnRefresh() throws {
        let directory = try TemporaryDirectory("refresh")
        defer { directory.remove() }
        let path = directory.appending("s")
        let writer = try LogStore.open(at: path, options: Self.options())
        try Self.put(writer, 1...10, version: 0)
        var readOnly = Self.options()
        readOnly.readOnly = true
        let reader = try LogStore.open(at: path, options: readOnly)
        #expect(try LogFixtures.values(of: reader) == (try LogFixtures.values(of: writer)))
        #expect(try reader.refresh() == false)
        // Commits to the active segment: read where the last scan ended.
        try Self.put(writer, 5...20, version: 1)
        #expect(try reader.refresh())
        #expect(try LogFixtures.values(of: reader) == (try LogFixtures.values(of: writer)))
        #expect(reader.lastSequence == writer.lastSequence)
        // Rolls and a compaction swap the manifest: the store is opened again.
        for round in 2..<8 { try Self.put(writer, (1...100).map { UInt64($0) }, version: round) }
        _ = try writer.compact(force: true)
        try Self.put(writer, 3...4, version: 9)
        #expect(try reader.refresh())
        #expect(try LogFixtures.values(of: reader) == (try LogFixtures.values(of: writer)))
        #expect(try reader.count(in: nil) == 100)
        // A writer's store and a snapshot have nothing to refresh.
        #expect(try writer.refresh() == false)
        try writer.close()
        try reader.close()
        #expect { try reader.refresh() } throws: { ($0 as? StrataError)?.code == .closed }
    }

    @Test func aWriteKeyedBySequenceTakesItsCommitsSequence() throws {
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: InMemoryFileSystem())
        let base = RecordKey(0xFFFF << 48)
        var sequences: [UInt64] = []
        for i in 0..<3 {
            var batch = WriteBatch()
            batch.put(RecordKey(UInt64(i + 1)), value: [UInt8(i)])
            batch.put([9, UInt8(i)], keyedBySequenceAfter: base)
            sequences.append(try store.commit(batch))
        }
        #expect(try store.keys(in: base..<RecordKey(UInt64.max)) == sequences.map { RecordKey(base.rawValue + $0) })
        #expect(try store.get(RecordKey(base.rawValue + sequences[1]))?.value == [9, 1])
        // One per batch: a second replaces the first.
        var batch = WriteBatch()
        batch.put([1], keyedBySequenceAfter: base)
        batch.put([2], keyedBySequenceAfter: base)
        #expect(batch.count == 1)
        // A key that would wrap is refused, and nothing is committed.
        var wrapping = WriteBatch()
        wrapping.put([1], keyedBySequenceAfter: RecordKey(UInt64.max))
        #expect { try store.commit(wrapping) } throws: { ($0 as? StrataError)?.code == .limitExceeded }
        #expect(store.lastSequence == sequences.last)
    }
}
