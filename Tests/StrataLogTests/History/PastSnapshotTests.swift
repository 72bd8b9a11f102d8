import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// A store read as of a past sequence answers as it did then: against a reference
/// model that keeps every state, through overwrites, deletes, keys written twice in one
/// transaction, blobs, rolls and compactions that keep what a moving retention asks for.
@Suite struct PastSnapshotTests {
    static func options() -> LogStoreOptions {
        var options = LogStoreOptions()
        options.durability = .none
        options.overlayEntryLimit = 48
        options.segmentSizeLimit = 6 << 10
        options.blobFileSizeLimit = 16 << 10
        options.compactionGarbageRatio = 0.2
        return options
    }

    /// What a key holds in the reference model: its value, its blob's bytes, its term.
    struct Held: Equatable {
        var value: [UInt8]
        var blob: [UInt8]?
        var term: UInt8
    }

    /// One key's state as the store answers it.
    static func held(_ record: Record, in store: LogStore) throws -> Held {
        Held(value: record.value, blob: try record.blobs.first.map { try store.readBlob($0) }, term: record.terms.first?.value.first ?? 0)
    }

    /// Every key, value, blob and term of `store`, and what its term index lists.
    static func answers(_ store: LogStore, keys: ClosedRange<UInt64>) throws -> (held: [UInt64: Held], byTerm: [UInt8: [UInt64]], count: Int) {
        var held: [UInt64: Held] = [:]
        try store.scan { records in for r in records { held[r.key.rawValue] = try Self.held(r, in: store) } }
        // Point reads agree with the scan, for keys present or not.
        for k in keys {
            let got = try store.get(RecordKey(k)).map { try Self.held($0, in: store) }
            if got != held[k] { Issue.record("get(\(k)) disagrees with the scan") }
        }
        var byTerm: [UInt8: [UInt64]] = [:]
        for term in UInt8(0)..<5 {
            byTerm[term] = try store.keys(for: IndexTerm(index: 1, value: [term])).map(\.rawValue)
        }
        return (held, byTerm, try store.count(in: nil))
    }

    static func expected(_ state: [UInt64: Held]) -> (held: [UInt64: Held], byTerm: [UInt8: [UInt64]], count: Int) {
        var byTerm: [UInt8: [UInt64]] = [:]
        for term in UInt8(0)..<5 { byTerm[term] = state.filter { $0.value.term == term }.keys.sorted() }
        return (state, byTerm, state.count)
    }

    @Test func everySequenceFromTheFloorReadsAsTheReferenceModelHadIt() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: memory)
        let retention = Locked<UInt64?>(0)
        store.setVersionRetention { _ in retention.withLock { $0 }.map { VersionRetention(after: $0) } }
        var rng = SplitMix(seed: 0x5EED_0F_7A57)
        let keys: ClosedRange<UInt64> = 1...160
        var state: [UInt64: Held] = [:]
        var states: [UInt64: [UInt64: Held]] = [0: [:]]
        var compactions = 0
        for step in 1...1_200 {
            var batch = WriteBatch()
            var next = state
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let k = UInt64.random(in: keys, using: &rng)
                if Int.random(in: 0..<5, using: &rng) == 0 {
                    batch.delete(RecordKey(k))
                    next[k] = nil
                } else {
                    let value = Array("\(k)@\(step)".utf8)
                    let term = UInt8.random(in: 0..<5, using: &rng)
                    let blob: [UInt8]? = k % 7 == 0 ? Array(repeating: UInt8(truncatingIfNeeded: step), count: 200 + Int(k)) : nil
                    batch.put(RecordKey(k), value: value, blobs: try blob.map { [try store.writeBlob($0)] } ?? [],
                              terms: [IndexTerm(index: 1, value: [term])])
                    next[k] = Held(value: value, blob: blob, term: term)
                }
            }
            let sequence = try store.commit(batch)
            state = next
            states[sequence] = state
            if step % 100 == 0 {
                // The retention moves forward, as a history horizon does.
                retention.withLock { $0 = sequence > 500 ? sequence - 500 : 0 }
                try store.compact(force: step % 200 == 0)
                compactions += 1
            }
        }
        #expect(compactions == 12)
        let report = try store.verify()
        #expect(report.isSound, "\(report.problems)")
        let floor = store.versionFloor
        let last = store.lastSequence
        #expect(floor == retention.withLock { $0 })
        #expect(floor > 0 && floor < last)
        for sequence in floor...last {
            let snapshot = try store.snapshot(asOf: sequence)
            defer { try? snapshot.close() }
            let got = try Self.answers(snapshot, keys: keys)
            let want = Self.expected(states[sequence] ?? [:])
            let wrong = keys.filter { got.held[$0] != want.held[$0] }
            #expect(wrong.isEmpty, "as of \(sequence), keys read wrong: \(wrong.prefix(8))")
            #expect(got.byTerm == want.byTerm, "terms as of \(sequence)")
            #expect(got.count == want.count, "count as of \(sequence)")
            #expect(snapshot.lastSequence == sequence)
            // One wrong state is enough to say; the rest would repeat it.
            if !wrong.isEmpty || got.count != want.count { break }
        }
        #expect { try store.snapshot(asOf: floor - 1) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        #expect { try store.snapshot(asOf: last + 1) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
    }

    @Test func aSnapshotAsOfThePastSurvivesCommitsAndACompactionWhileOpen() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: memory)
        store.setVersionRetention { _ in VersionRetention(after: 0) }
        var batch = WriteBatch()
        for k in UInt64(1)...50 { batch.put(RecordKey(k), value: [1], terms: [IndexTerm(index: 1, value: [1])]) }
        let first = try store.commit(batch)
        var second = WriteBatch()
        for k in UInt64(1)...50 where k % 2 == 0 { second.delete(RecordKey(k)) }
        for k in UInt64(51)...60 { second.put(RecordKey(k), value: [2]) }
        try store.commit(second)
        let then = try store.snapshot(asOf: first)
        defer { try? then.close() }
        for round in UInt8(3)..<40 {
            var more = WriteBatch()
            for k in UInt64(1)...60 { more.put(RecordKey(k), value: [round], terms: [IndexTerm(index: 1, value: [round])]) }
            try store.commit(more)
        }
        try store.compact(force: true)
        #expect(try then.keys(in: nil).map(\.rawValue) == Array(1...50))
        #expect(try then.keys(for: IndexTerm(index: 1, value: [1])).count == 50)
        #expect(try then.get(RecordKey(2))?.value == [1])
        #expect(try then.get(RecordKey(55)) == nil)
        // Compacted with the retention at 0, the store still reads as of the first commit.
        let again = try store.snapshot(asOf: first)
        defer { try? again.close() }
        #expect(try again.keys(in: nil).map(\.rawValue) == Array(1...50))
        #expect(try again.get(RecordKey(2))?.value == [1])
    }

    /// A tombstone the step drops (current when read, at or below the retention), then
    /// a commit writes its key again before the step reads an older segment holding an
    /// earlier version: that version is not the key's newest at the retention (the
    /// tombstone was), so it must not be kept, or the key would come back as of then.
    @Test func aVersionBelowATombstoneTheStepDroppedIsNotKeptWhenACommitRacesIt() throws {
        let memory = InMemoryFileSystem()
        var options = Self.options()
        options.segmentSizeLimit = 64 << 20
        let store = try LogStore.open(at: "/s", options: options, fileSystem: memory)
        let retention = Locked<UInt64?>(nil)
        store.setVersionRetention { _ in retention.withLock { $0 }.map { VersionRetention(after: $0) } }
        let key = RecordKey(7)
        // Each segment is given garbage (a key written twice), so that compaction takes it.
        func put(_ k: RecordKey, _ value: UInt8) throws {
            var batch = WriteBatch()
            batch.put(k, value: [value])
            try store.commit(batch)
        }
        try put(key, 0)
        try put(key, 1)
        try store.sealActiveSegment()
        // The put moves to a compaction output, whose id is above the active segment's.
        try store.compact(force: true)
        var delete = WriteBatch()
        delete.delete(key)
        let deleted = try store.commit(delete)
        try put(RecordKey(8), 8)
        try put(RecordKey(8), 9)
        try store.sealActiveSegment()
        retention.withLock { $0 = deleted }
        let ids = Locked<[UInt32]>([])
        store.compactionDidReadSegment.withLock { hook in
            hook = { id in
                let first = ids.withLock { $0.append(id); return $0.count == 1 }
                guard first else { return }
                var again = WriteBatch()
                again.put(key, value: [3])
                try store.commit(again)
            }
        }
        try store.compact(force: true)
        store.compactionDidReadSegment.withLock { $0 = nil }
        #expect(ids.withLock { $0.count } >= 2)
        let then = try store.snapshot(asOf: deleted)
        defer { try? then.close() }
        #expect(try then.get(key) == nil, "the deleted key reads as of its deletion")
        #expect(try then.get(RecordKey(8)) == nil)
        #expect(try store.get(key)?.value == [3])
        #expect(try store.verify().isSound)
    }

    /// A commit during the compaction carries over a reference into a blob file being
    /// collected, and a later one supersedes it: the version kept for the retention
    /// still names the file, which must not be deleted.
    @Test func aBlobFileAKeptVersionWrittenDuringTheCompactionNamesIsNotCollected() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: memory)
        let retention = Locked<UInt64?>(0)
        store.setVersionRetention { _ in retention.withLock { $0 }.map { VersionRetention(after: $0) } }
        let key = RecordKey(1)
        let bytes = [UInt8](repeating: 7, count: 4_000)
        let blob = try store.writeBlob(bytes)
        var first = WriteBatch()
        first.put(key, value: [1], blobs: [blob])
        try store.commit(first)
        // Garbage in the blob file: blobs written and superseded, then the file rolls.
        for round in 0..<6 {
            var batch = WriteBatch()
            batch.put(RecordKey(100 + UInt64(round)), value: [2], blobs: [try store.writeBlob([UInt8](repeating: UInt8(round), count: 3_000))])
            try store.commit(batch)
            var drop = WriteBatch()
            drop.delete(RecordKey(100 + UInt64(round)))
            try store.commit(drop)
        }
        let carriedAt = Locked<UInt64>(0)
        store.compactionDidReadSegment.withLock { hook in
            hook = { _ in
                guard carriedAt.withLock({ $0 }) == 0 else { return }
                var again = WriteBatch()
                again.put(key, value: [2], blobs: [blob])     // the reference carried over
                let sequence = try store.commit(again)
                carriedAt.withLock { $0 = sequence }
                var replace = WriteBatch()
                replace.put(key, value: [3])
                try store.commit(replace)
            }
        }
        let report = try store.compact(force: true)
        store.compactionDidReadSegment.withLock { $0 = nil }
        let carried = carriedAt.withLock { $0 }
        #expect(carried > 0 && report.segmentsCompacted > 0)
        let then = try store.snapshot(asOf: carried)
        defer { try? then.close() }
        let version = try #require(try then.get(key))
        #expect(version.value == [2])
        #expect(try then.readBlob(try #require(version.blobs.first)) == bytes)
        #expect(try store.verify().isSound)
    }

    /// A floor value that is not 8 bytes refuses every past sequence; the last one
    /// still reads.
    @Test func aMalformedFloorRefusesEveryPastSequence() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: memory)
        for round in UInt8(0)..<3 {
            var batch = WriteBatch()
            batch.put(RecordKey(1), value: [round])
            try store.commit(batch)
        }
        try store.writer.withLock { _ in
            var manifest = store.state.withLock { $0.manifest }
            manifest.metadata[Manifest.versionFloorKey] = [1, 2, 3]
            try store.writeManifest(manifest)
        }
        #expect(store.versionFloor == .max)
        #expect(store.metadata.isEmpty)
        #expect { try store.snapshot(asOf: 1) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        let now = try store.snapshot(asOf: store.lastSequence)
        #expect(try now.get(RecordKey(1))?.value == [2])
        try now.close()
    }

    @Test func withoutARetentionCompactionRaisesTheFloorToItsLastSequence() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: memory)
        for round in UInt8(0)..<30 {
            var batch = WriteBatch()
            for k in UInt64(1)...40 { batch.put(RecordKey(k), value: [round]) }
            try store.commit(batch)
        }
        #expect(store.versionFloor == 0)
        let early = try store.snapshot(asOf: 3)
        #expect(try early.get(RecordKey(1))?.value == [2])
        try early.close()
        try store.compact(force: true)
        #expect(store.versionFloor == store.lastSequence)
        #expect { try store.snapshot(asOf: 3) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        // The floor is kept across a reopen, and is the engine's: callers' metadata
        // neither shows nor replaces it.
        try store.setMetadata(["app": [1]])
        #expect(store.metadata == ["app": [1]])
        let floor = store.versionFloor
        try store.close()
        let reopened = try LogStore.open(at: "/s", options: Self.options(), fileSystem: memory)
        #expect(reopened.versionFloor == floor)
        try reopened.close()
    }
    /// A past snapshot taken while the writer rolls segments and compaction swaps
    /// groups in finds every file the manifest it copied names: the manifest and the
    /// files and index it names change in one step.
    @Test func pastSnapshotsTakenDuringRollsAndSwapsFindEveryFile() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: memory)
        defer { try? store.close() }
        store.setVersionRetention { _ in VersionRetention(after: 0) }
        let done = Locked(false)
        let failures = Locked<[String]>([])
        let taken = Locked(0)
        let reader = Thread {
            while !done.withLock({ $0 }) {
                let last = store.lastSequence
                guard last > 1 else { continue }
                do {
                    let then = try store.snapshot(asOf: last - 1)
                    _ = try then.count(in: nil)
                    try then.close()
                    taken.withLock { $0 += 1 }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        reader.start()
        var rng = SplitMix(seed: 0x5AFE_5A45)
        for step in 1...3_000 {
            var batch = WriteBatch()
            batch.put(RecordKey(UInt64.random(in: 1...200, using: &rng)), value: Array("\(step)".utf8))
            try store.commit(batch)
            if step % 150 == 0 { try store.compact() }
        }
        done.withLock { $0 = true }
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.001) }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        #expect(taken.withLock { $0 } > 0)
    }
}
