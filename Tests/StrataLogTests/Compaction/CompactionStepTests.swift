import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// Compaction in steps that commits interleave with: each step copies a segment group
/// with no lock held, and its swap counts only what the commits since its start make
/// necessary. Commits made between a step's copy and its swap — some left in the
/// active segment, some sealed into a segment of their own — must leave the counters
/// exact (the live ones, which `verify` recounts, and the manifest's, which a copy of
/// the open store's files reopens with) and every value as last written.
@Suite struct CompactionStepTests {
    /// A store of `keys` keys written `rounds` times over small segments, each with a
    /// blob in small blob files: plenty of garbage in several groups.
    static func garbageStore(at path: String, keys: UInt64 = 240, rounds: Int = 4, segmentSizeLimit: Int = 8 << 10, blobs: Bool = true) throws -> (LogStore, [UInt64: [UInt8]], LogStoreOptions) {
        var options = LogStoreOptions()
        options.segmentSizeLimit = segmentSizeLimit
        options.compactionBatchBytes = 24 << 10
        options.blobFileSizeLimit = 32 << 10
        let store = try LogStore.open(at: path, options: options, logger: .quiet)
        var expected: [UInt64: [UInt8]] = [:]
        for round in 0..<rounds {
            var batch = WriteBatch()
            for key in 0..<keys {
                let value = LogFixtures.value(key, version: round, size: 60)
                let blob = blobs ? [try store.writeBlob(LogFixtures.noise(600, seed: key &* 7 &+ UInt64(round)))] : []
                batch.put(RecordKey(key), value: value, blobs: blob)
                expected[key] = value
            }
            try store.commit(batch)
        }
        return (store, expected, options)
    }

    /// Commits `keys` at `version` (60-byte values) as one transaction, each with the
    /// blob `blob` gives it, if any; returns the values written by key.
    @discardableResult
    static func put(_ keys: some Sequence<UInt64>, version: Int, into store: LogStore,
                    blob: (UInt64) -> [UInt8]? = { _ in nil }) throws -> [UInt64: [UInt8]] {
        var batch = WriteBatch()
        var written: [UInt64: [UInt8]] = [:]
        for key in keys {
            let value = LogFixtures.value(key, version: version, size: 60)
            batch.put(RecordKey(key), value: value, blobs: try blob(key).map { [try store.writeBlob($0)] } ?? [])
            written[key] = value
        }
        try store.commit(batch)
        return written
    }

    /// Every value as expected, the store's counters recounted, and a copy of its files
    /// taken while it is open (the manifest's counters with the active segment replayed
    /// on top) sound too.
    static func expectExact(_ store: LogStore, _ expected: [UInt64: [UInt8]], keys: UInt64, directory: String, options: LogStoreOptions) throws {
        for key in 0..<keys { #expect(try store.get(RecordKey(key))?.value == expected[key], "key \(key)") }
        let report = try store.verify()
        #expect(report.isSound, "\(report.problems)")
        let copy = directory + "-copy"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: directory, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try? FileManager.default.removeItem(atPath: copy + "/LOCK")
        let reopened = try LogStore.open(at: copy, options: options, logger: .quiet)
        defer { try? reopened.close() }
        #expect(reopened.usage == store.usage)
        let reopenedReport = try reopened.verify()
        #expect(reopenedReport.isSound, "\(reopenedReport.problems)")
        for key in 0..<keys { #expect(try reopened.get(RecordKey(key))?.value == expected[key], "key \(key) after reopen") }
    }

    /// When a step's concurrent commits come.
    enum CommitsDuring: CaseIterable, Sendable {
        /// While the step copies: the look before the swap takes the writer lock finds them.
        case theCopy
        /// Just before the swap: the swap itself finds them.
        case theSwap
        /// Both, the same keys each time: a copy superseded twice is taken back once.
        case both
    }

    /// How many keys a step gathers of the commits during it: the default, or so few
    /// that every step looks up its copies instead — also with a retention, where the
    /// outputs hold superseded versions beside the current copy each key has.
    enum GatheredKeys: CaseIterable, Sendable {
        case all, few, fewKeepingVersions
    }

    @Test(arguments: [false, true], CommitsDuring.allCases)
    func commitsBetweenACopyAndItsSwapLeaveTheCountersExact(sealTheCommits: Bool, during: CommitsDuring) throws {
        for gathered in GatheredKeys.allCases {
            try commitsBetweenACopyAndItsSwapLeaveTheCountersExact(sealTheCommits: sealTheCommits, during: during, gathered: gathered)
        }
    }

    func commitsBetweenACopyAndItsSwapLeaveTheCountersExact(sealTheCommits: Bool, during: CommitsDuring, gathered: GatheredKeys) throws {
        let dir = try TemporaryDirectory("compact-steps")
        defer { dir.remove() }
        let (store, initial, options) = try Self.garbageStore(at: dir.path)
        defer { try? store.close() }
        if gathered != .all { store.compactionWrittenKeysLimit.withLock { $0 = 3 } }
        if gathered == .fewKeepingVersions {
            // The versions of the last two rounds stay.
            let after = store.lastSequence - 2
            store.setVersionRetention { _ in VersionRetention(after: after) }
        }
        let expected = Locked(initial)
        // Overwrite some keys (with and without a blob), delete others, and — in one
        // variant — write enough to seal the active segment, so that the commits since
        // the step began lie in a sealed segment and in the active one.
        @Sendable func commitSome(_ step: Int) throws {
            var batch = WriteBatch()
            for key in stride(from: UInt64(step), to: 240, by: 7) {
                if key % 3 == 0 {
                    batch.delete(RecordKey(key))
                    expected.withLock { $0[key] = nil }
                } else {
                    let value = LogFixtures.value(key, version: 100 + step, size: 60)
                    let blobs = key % 2 == 0 ? [try store.writeBlob(LogFixtures.noise(300, seed: key &+ 1000))] : []
                    batch.put(RecordKey(key), value: value, blobs: blobs)
                    expected.withLock { $0[key] = value }
                }
            }
            try store.commit(batch)
            if sealTheCommits {
                var filler = WriteBatch()
                for key in UInt64(1000)..<1150 {
                    let value = LogFixtures.value(key, version: step, size: 60)
                    filler.put(RecordKey(key), value: value)
                    expected.withLock { $0[key] = value }
                }
                try store.commit(filler)
                var after = WriteBatch()
                let value = LogFixtures.value(UInt64(step + 1), version: 200 + step, size: 60)
                after.put(RecordKey(UInt64(step + 1)), value: value)
                expected.withLock { $0[UInt64(step + 1)] = value }
                try store.commit(after)
            }
        }
        // In `.both` a swap writes again the keys written while its group was copied.
        let segmentsRead = Locked(0)
        if during != .theSwap {
            store.compactionDidReadSegment.withLock {
                $0 = { _ in try commitSome(segmentsRead.withLock { $0 += 1; return $0 }) }
            }
        }
        if during != .theCopy {
            store.compactionWillSwap.withLock {
                $0 = { step in try commitSome(during == .both ? segmentsRead.withLock { $0 } : step) }
            }
        }
        let report = try store.compact(force: true)
        store.compactionWillSwap.withLock { $0 = nil }
        store.compactionDidReadSegment.withLock { $0 = nil }
        #expect(report.steps > 1, "\(report)")
        #expect(report.blobFilesCollected > 0, "\(report)")
        try Self.expectExact(store, expected.withLock { $0 }, keys: 1200, directory: dir.path, options: options)
        // A second compaction meets the first one's outputs, some of them superseded.
        let again = try store.compact(force: true)
        #expect(again.segmentsCompacted > 0)
        try Self.expectExact(store, expected.withLock { $0 }, keys: 1200, directory: dir.path, options: options)
    }

    /// A key's version the step drops because the active segment already holds a newer
    /// one: after the swap, the newest version of the key in the sealed files is an
    /// older one in a segment the step did not read, already counted dead. A reopen's
    /// replay of the active segment subtracts it again unless the swap's counters
    /// allowed for that; a store that took the manifest's counters as they are in
    /// memory would come back with too few live bytes in that segment (and blob
    /// bytes in its blob file). Also with a tombstone as the active segment's record.
    @Test(arguments: [false, true])
    func aVersionDroppedUnderTheActiveSegmentLeavesTheCountersExact(deleting: Bool) throws {
        let dir = try TemporaryDirectory("compact-dropped-under-active")
        defer { dir.remove() }
        let options = LogStoreOptions()
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? store.close() }
        var expected: [UInt64: [UInt8]] = [:]
        func put(_ keys: some Sequence<UInt64>, version: Int) throws {
            // Blobs only where they leave the blob files' garbage below the threshold.
            let written = try Self.put(keys, version: version, into: store) { key in
                key < 100 ? LogFixtures.noise(200, seed: key &+ UInt64(version)) : nil
            }
            expected.merge(written) { $1 }
        }
        // Segment one: key 0's first version among 99 others that stay live (1% garbage).
        try put(0..<100, version: 0)
        try store.sealActiveSegment()
        // Segment two: key 0's second version among keys written three times (mostly garbage).
        try put([0], version: 1)
        for round in 0..<3 { try put(200..<300, version: round) }
        try store.sealActiveSegment()
        // The active segment: key 0 again, which makes segment two's version garbage too.
        if deleting {
            var batch = WriteBatch()
            batch.delete(RecordKey(0))
            try store.commit(batch)
            expected[0] = nil
        } else {
            try put([0], version: 2)
        }
        let active = store.state.withLock { $0.manifest.activeSegment?.id }
        let report = try store.compact()
        #expect(report.segmentsCompacted == 1, "\(report)")
        // The swap left the active segment as it was (no roll under the writer lock).
        #expect(store.state.withLock { $0.manifest.activeSegment?.id } == active)
        try Self.expectExact(store, expected, keys: 300, directory: dir.path, options: options)
    }

    /// A step drops a version that a commit not yet durable superseded (durability
    /// `.none`: nothing is fsynced per commit). The swap makes that commit durable
    /// before the manifest stops naming the group: after a power loss the key reads as
    /// the commit wrote it, never as the older version another segment still holds
    /// (which would mean the commit was lost and the version it superseded with it).
    @Test(arguments: [LogStoreOptions.Durability.none, .everyCommit])
    func aVersionDroppedForACommitSurvivesAPowerLossWithTheCommit(durability: LogStoreOptions.Durability) throws {
        let memory = InMemoryFileSystem()
        var options = LogStoreOptions()
        options.durability = durability
        let root = "/store"
        let store = try LogStore.open(at: root, options: options, fileSystem: memory, logger: .quiet)
        func put(_ keys: some Sequence<UInt64>, version: Int) throws { try Self.put(keys, version: version, into: store) }
        // Segment one, 1% garbage after the next: key 0's first version.
        try put(0..<100, version: 0)
        try store.sealActiveSegment()
        // Segment two, mostly garbage: key 0's second version.
        try put([0], version: 1)
        for round in 0..<3 { try put(200..<300, version: round) }
        try store.sealActiveSegment()
        // Durable up to here; key 0's third version only in memory (with `.none`).
        try store.sync()
        try put([0], version: 2)
        let report = try store.compact()
        #expect(report.segmentsCompacted == 1, "\(report)")
        let cut = memory.crashedCopy()
        try store.close()
        let reopened = try LogStore.open(at: root, options: options, fileSystem: cut, logger: .quiet)
        defer { try? reopened.close() }
        #expect(try reopened.get(RecordKey(0))?.value == LogFixtures.value(0, version: 2, size: 60))
        #expect(try reopened.verify().isSound)
    }

    /// The fsync that makes the commits before a step's swap durable is group commit's
    /// syncer's, never the compacting thread's, and the syncer keeps the priority of
    /// the thread that opened the store: a background compaction runs at nice + 10, and
    /// durable saves arriving while a thread of that priority led an fsync would wait
    /// for it to be scheduled again before they learned they were durable.
    @Test func aStepLeavesTheLogsFsyncToTheSyncer() throws {
        let memory = InMemoryFileSystem()
        let recorder = SyncThreadRecorder(base: memory)
        var options = LogStoreOptions()
        options.durability = .none
        let root = "/store"
        let store = try LogStore.open(at: root, options: options, fileSystem: recorder, logger: .quiet)
        defer { try? store.close() }
        func put(_ keys: some Sequence<UInt64>, version: Int) throws { try Self.put(keys, version: version, into: store) }
        try put(0..<100, version: 0)
        try store.sealActiveSegment()
        for round in 0..<3 { try put(0..<100, version: round + 1) }
        try store.sealActiveSegment()
        // A commit not yet durable, which the step must make durable before its swap.
        try put([0], version: 9)
        let active = try #require(store.state.withLock { $0.manifest.activeSegment?.id })
        let activePath = StorePaths(root).segment(active)
        // Its creation's fsync was the sealing thread's.
        recorder.forget()
        let opener = SyncThreadRecorder.niceness()
        let compacting = Locked<pthread_t?>(nil)
        let outcome = Locked<Result<CompactionReport, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Compacted on a thread of its own, made nicer as a background compaction's is.
        let thread = Thread {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, opener + 10)
            compacting.withLock { $0 = pthread_self() }
            outcome.withLock { $0 = Result { try store.compact() } }
            done.signal()
        }
        thread.start()
        done.wait()
        let report = try #require(outcome.withLock { $0 }).get()
        #expect(report.segmentsCompacted >= 1, "\(report)")
        let syncs = recorder.syncs(of: activePath)
        #expect(!syncs.isEmpty, "the step made no fsync of the active segment")
        #expect(!syncs.contains { $0.thread == compacting.withLock { $0 } }, "the compacting thread ran the fsync itself")
        #expect(syncs.allSatisfy { $0.niceness == opener }, "fsyncs ran at nice \(syncs.map(\.niceness)), the opener's is \(opener)")
        #expect(try store.get(RecordKey(0))?.value == LogFixtures.value(0, version: 9, size: 60))
    }

    /// A commit made just after a step's swap can keep a reference into the blob file
    /// that swap named first (an object saved again with its photo unchanged): the
    /// commit is acknowledged, so a power loss right after it must not bring back a
    /// manifest that lacks the file. The commit is tried from the moment the swap asks
    /// for the directory's fsync, and the power cut taken once it returns.
    @Test func aCommitReferencingABlobFileASwapNamedSurvivesAPowerLoss() throws {
        let memory = InMemoryFileSystem()
        let root = "/store"
        let hooked = DirectorySyncHook(base: memory, root: root)
        let store = try LogStore.open(at: root, options: LogStoreOptions(), fileSystem: hooked, logger: .quiet)
        let photo = LogFixtures.noise(600, seed: 1)
        // Key 1's blob stays live; keys 100..<120's go to garbage, so the blob file is
        // collected and key 1's blob moves to a new one.
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: LogFixtures.value(1, version: 0, size: 60), blobs: [try store.writeBlob(photo)])
        for key in UInt64(100)..<120 {
            batch.put(RecordKey(key), value: LogFixtures.value(key, version: 0, size: 60), blobs: [try store.writeBlob(LogFixtures.noise(600, seed: key))])
        }
        try store.commit(batch)
        for round in 1...3 {
            var batch = WriteBatch()
            for key in UInt64(100)..<120 { batch.put(RecordKey(key), value: LogFixtures.value(key, version: round, size: 60)) }
            try store.commit(batch)
        }
        try store.sealActiveSegment()
        let saved = LogFixtures.value(1, version: 1, size: 60)
        let originalFile = try #require(try store.get(RecordKey(1))?.blobs.first).file
        let cut = Locked<InMemoryFileSystem?>(nil)
        let committed = DispatchSemaphore(value: 0)
        store.compactionWillSwap.withLock {
            $0 = { _ in
                hooked.onRootSync.withLock {
                    $0 = {
                        // Key 1 saved again with its blob reference once it reads the
                        // new file's: as soon as the swap is installed.
                        Thread.detachNewThread {
                            defer { committed.signal() }
                            let deadline = ContinuousClock.now + .seconds(10)
                            var blobs: [BlobRef] = []
                            while ContinuousClock.now < deadline {
                                blobs = (try? store.get(RecordKey(1)))?.blobs ?? []
                                if blobs.count == 1, blobs[0].file != originalFile { break }
                                usleep(100)
                            }
                            var batch = WriteBatch()
                            batch.put(RecordKey(1), value: saved, blobs: blobs)
                            guard (try? store.commit(batch)) != nil else { return }
                            cut.withLock { $0 = memory.crashedCopy() }
                        }
                        // A commit the swap holds off finishes after it; one it lets in,
                        // now (its signal put back for the test's wait below).
                        if committed.wait(timeout: .now() + .milliseconds(500)) == .success { committed.signal() }
                    }
                }
            }
        }
        let report = try store.compact()
        #expect(report.blobFilesCollected == 1, "\(report)")
        committed.wait()
        #expect(try store.get(RecordKey(1))?.blobs.first?.file != originalFile, "the commit kept the old blob file's reference")
        try store.close()
        let crashed = try #require(cut.withLock { $0 }, "the commit after the swap failed")
        let reopened = try LogStore.open(at: root, options: LogStoreOptions(), fileSystem: crashed, logger: .quiet)
        defer { try? reopened.close() }
        let record = try #require(try reopened.get(RecordKey(1)))
        #expect(record.value == saved)
        #expect(try record.blobs.map { try reopened.readBlob($0) } == [photo])
        #expect(try reopened.verify().isSound)
    }

    /// A compaction that removes a collected blob file while the active segment holds
    /// a commit that superseded — before the step read it — a version whose blob is in
    /// that file: reopened, the counters match the open store's (the commit, replayed,
    /// would otherwise take the older version's blob bytes from a counter the manifest
    /// no longer has).
    @Test func aBlobFileCollectedUnderTheActiveSegmentLeavesTheCountersExact() throws {
        let dir = try TemporaryDirectory("compact-collect-under-active")
        defer { dir.remove() }
        let options = LogStoreOptions()
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? store.close() }
        var expected: [UInt64: [UInt8]] = [:]
        func put(_ keys: some Sequence<UInt64>, version: Int, blobs: Set<UInt64> = []) throws {
            let written = try Self.put(keys, version: version, into: store) { key in
                blobs.contains(key) ? LogFixtures.noise(600, seed: key &* 31 &+ UInt64(version)) : nil
            }
            expected.merge(written) { $1 }
        }
        // A segment left alone (1% garbage): key 0's first version, whose blob is in
        // the blob file that every other blob written here shares.
        try put(0..<100, version: 0, blobs: [0])
        try store.sealActiveSegment()
        // A segment mostly garbage, the blob file's other blobs superseded in it.
        for round in 0..<3 { try put(200..<300, version: round, blobs: round == 0 ? Set(200..<210) : []) }
        try store.sealActiveSegment()
        // Another: key 0's second version (no blob), which leaves the blob file all garbage.
        try put([0], version: 1)
        for round in 0..<3 { try put(300..<400, version: round) }
        try store.sealActiveSegment()
        // Key 0 is deleted once the compaction has read the first of the two segments:
        // the step drops key 0's second version when it reads the other.
        let deleted = Locked(false)
        store.compactionDidReadSegment.withLock {
            $0 = { _ in
                guard !deleted.withLock({ $0 }) else { return }
                var batch = WriteBatch()
                batch.delete(RecordKey(0))
                try store.commit(batch)
                deleted.withLock { $0 = true }
            }
        }
        expected[0] = nil
        let report = try store.compact()
        store.compactionDidReadSegment.withLock { $0 = nil }
        #expect(report.blobFilesCollected == 1, "\(report)")
        #expect(report.segmentsCompacted == 2, "\(report)")
        try Self.expectExact(store, expected, keys: 400, directory: dir.path, options: options)
    }

    /// Collecting blob files holds the writer lock from the index's first entry to the
    /// manifest: the report counts that hold as a pause, as it counts each swap.
    @Test func theCollectionOfBlobFilesCountsAsAPause() throws {
        let dir = try TemporaryDirectory("compact-collect-pause")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path, options: LogStoreOptions(), logger: .quiet)
        defer { try? store.close() }
        for version in 0..<3 {
            _ = try Self.put(0..<50, version: version, into: store) { key in
                version == 0 ? LogFixtures.noise(600, seed: key) : nil
            }
        }
        let hold = Duration.milliseconds(60)
        store.compactionWillCollectBlobFiles.withLock { $0 = { Thread.sleep(forTimeInterval: hold / .seconds(1)) } }
        let report = try store.compact(force: true)
        #expect(report.blobFilesCollected == 1, "\(report)")
        #expect(report.longestPause >= hold, "\(report)")
    }

    /// A swap that would have to look up more keys than it may under the writer lock
    /// (commits made while the step ran, after it accounted for the active segment)
    /// seals the active segment instead: the counters stay exact either way.
    @Test func aSwapAfterManyCommitsSealsTheActiveSegment() throws {
        let dir = try TemporaryDirectory("compact-swap-rolls")
        defer { dir.remove() }
        // Segments large enough that the commit below does not roll one itself, and no
        // blob file to collect (its collection seals a non-empty active segment too).
        let (store, initial, options) = try Self.garbageStore(at: dir.path, segmentSizeLimit: 1 << 20, blobs: false)
        defer { try? store.close() }
        let expected = Locked(initial)
        let keys = UInt64(LogStore.swapLookupLimit) + 10
        let activeBeforeSwap = Locked<UInt32?>(nil)
        store.compactionWillSwap.withLock {
            $0 = { step in
                guard step == 1 else { return }
                var batch = WriteBatch()
                for key in 10_000..<(10_000 + keys) {
                    let value = LogFixtures.value(key, version: 1, size: 20)
                    batch.put(RecordKey(key), value: value)
                    expected.withLock { $0[key] = value }
                }
                try store.commit(batch)
                activeBeforeSwap.withLock { $0 = store.state.withLock { $0.manifest.activeSegment?.id } }
            }
        }
        _ = try store.compact(force: true)
        store.compactionWillSwap.withLock { $0 = nil }
        let sealedBy = activeBeforeSwap.withLock { $0 }
        #expect(sealedBy != nil, "the hook ran")
        #expect(store.state.withLock { $0.manifest.activeSegment?.id } != sealedBy, "the swap sealed the segment holding the commit")
        let all = expected.withLock { $0 }
        for key in 10_000..<(10_000 + keys) { #expect(try store.get(RecordKey(key))?.value == all[key]) }
        try Self.expectExact(store, all, keys: 240, directory: dir.path, options: options)
    }

    /// A step whose swap fails (here: the hook throws, as a failed fsync would before
    /// the manifest is written) leaves the store as it was: its outputs unnamed, every
    /// value readable, the counters exact; the next compaction finishes the work.
    @Test func aStepThatDoesNotSwapLeavesTheStoreAsItWas() throws {
        let dir = try TemporaryDirectory("compact-step-fails")
        defer { dir.remove() }
        let (store, expected, options) = try Self.garbageStore(at: dir.path)
        defer { try? store.close() }
        struct Stop: Error {}
        store.compactionWillSwap.withLock { $0 = { step in if step == 2 { throw Stop() } } }
        #expect(throws: Stop.self) { try store.compact(force: true) }
        store.compactionWillSwap.withLock { $0 = nil }
        try Self.expectExact(store, expected, keys: 240, directory: dir.path, options: options)
        let report = try store.compact(force: true)
        #expect(report.segmentsCompacted > 0)
        try Self.expectExact(store, expected, keys: 240, directory: dir.path, options: options)
    }

    @Test func theReportCountsStepsAndPauses() throws {
        let dir = try TemporaryDirectory("compact-report")
        defer { dir.remove() }
        let (store, _, _) = try Self.garbageStore(at: dir.path)
        defer { try? store.close() }
        let steps = Locked(0)
        store.compactionWillSwap.withLock { $0 = { _ in steps.withLock { $0 += 1 } } }
        let report = try store.compact(force: true)
        #expect(report.steps == steps.withLock { $0 })
        #expect(report.steps > 1)
        #expect(report.longestPause > .zero && report.longestPause <= report.duration)
    }

    /// Compaction looks up every record it reads without putting the index blocks it
    /// reads into the block cache: a pass over the whole store would otherwise grow the
    /// process by the cache's budget and evict the blocks requests read.
    @Test func compactionLeavesTheBlockCacheToRequests() throws {
        let dir = try TemporaryDirectory("compact-cache")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSizeLimit = 256 << 10
        do {
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            for round in 0..<2 {
                var batch = WriteBatch()
                for key in UInt64(0)..<20_000 where round == 0 || key % 2 == 0 {
                    batch.put(RecordKey(key), value: LogFixtures.value(key, version: round, size: 24))
                }
                try store.commit(batch)
            }
            try store.close()
        }
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? store.close() }
        let before = store.blockCache.usage.index
        let report = try store.compact(force: true)
        #expect(report.recordsRewritten >= 20_000)
        // Fences and filters of the files it reads and writes (a few KiB), not their
        // data blocks (some 30,000 lookups in two files: about 150 KiB packed).
        #expect(store.blockCache.usage.index - before < 32 << 10, "index bytes cached: \(before) → \(store.blockCache.usage.index)")
        for key in UInt64(0)..<20_000 { #expect(try store.get(RecordKey(key))?.value == LogFixtures.value(key, version: key % 2 == 0 ? 1 : 0, size: 24)) }
    }

    /// Each manifest a compaction writes is made durable by one fsync of the store's
    /// directory: a swap's under the writer lock when it names a new blob file, after
    /// the lock otherwise — never both.
    @Test(arguments: [false, true])
    func eachSwapFsyncsTheStoresDirectoryOnce(movingBlobs: Bool) throws {
        let root = "/store"
        let counter = DirectorySyncHook(base: InMemoryFileSystem(), root: root)
        var options = LogStoreOptions()
        options.segmentSizeLimit = 8 << 10
        options.compactionBatchBytes = 4 << 10
        let store = try LogStore.open(at: root, options: options, fileSystem: counter, logger: .quiet)
        defer { try? store.close() }
        for round in 0..<4 {
            try Self.put(0..<240, version: round, into: store) { key in
                movingBlobs && key % 3 == 0 ? LogFixtures.noise(600, seed: key &* 7 &+ UInt64(round)) : nil
            }
        }
        try store.sealActiveSegment()
        let syncsBefore = counter.rootSyncs
        let generation = store.state.withLock { $0.manifest.generation }
        let report = try store.compact(force: true)
        let manifests = Int(store.state.withLock { $0.manifest.generation } - generation)
        #expect(report.steps > 1, "\(report)")
        #expect(movingBlobs == (report.blobsMoved > 0), "\(report)")
        #expect(manifests >= report.steps)
        let syncs = counter.rootSyncs - syncsBefore
        #expect(syncs == manifests, "\(syncs) fsyncs of the store's directory for \(manifests) manifests written in \(report.steps) swaps")
    }

    /// A store of `keys` keys, every even one written again, its active segment sealed
    /// (compaction then starts with its lookups, not with a roll), and a compaction of
    /// it started on a thread with its first index read held. No lookup ran since the
    /// open, so that read is one of its lookups' (a Bloom filter or a data block).
    /// Returns whether a read was held within a minute; the caller releases it.
    static func compactionHeldInALookup(at path: String, keys: UInt64, options: LogStoreOptions) throws
        -> (LogStore, GatedReadFileSystem, Locked<Result<CompactionReport, any Error>?>, held: Bool) {
        let fileSystem = GatedReadFileSystem(wrapping: POSIXFileSystem())
        let store = try LogStore.open(at: path, options: options, fileSystem: fileSystem, logger: .quiet)
        for round in 0..<2 {
            var batch = WriteBatch()
            for key in UInt64(0)..<keys where round == 0 || key % 2 == 0 {
                batch.put(RecordKey(key), value: LogFixtures.value(key, version: round, size: 24))
            }
            try store.commit(batch)
        }
        try store.sealActiveSegment()
        fileSystem.holdNextIndexRead()
        let compacted = Locked<Result<CompactionReport, any Error>?>(nil)
        Thread { compacted.withLock { $0 = Result { try store.compact(force: true) } } }.start()
        return (store, fileSystem, compacted, fileSystem.waitUntilHeld(timeout: .seconds(60)))
    }

    /// The compaction's outcome once it ends, within two minutes; nil when it has not.
    static func finished(_ compacted: Locked<Result<CompactionReport, any Error>?>) -> Result<CompactionReport, any Error>? {
        let deadline = ContinuousClock.now + .seconds(120)
        while compacted.withLock({ $0 == nil }), ContinuousClock.now < deadline { usleep(1_000) }
        return compacted.withLock { $0 }
    }

    /// Compaction asks the index which records are current as reads do: the overlay
    /// under the state lock, the index files after it, outside. A lookup held in an
    /// index file's read (a slow disk) holds off no read and no commit.
    @Test func readsAndCommitsDoNotWaitForCompactionsLookups() throws {
        let dir = try TemporaryDirectory("compact-lookups")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSizeLimit = 64 << 10
        let (store, fileSystem, compacted, held) = try Self.compactionHeldInALookup(at: dir.path, keys: 4_000, options: options)
        defer { try? store.close() }
        defer { fileSystem.release() }
        #expect(held, "compaction read no index file")
        // Compaction is inside a lookup, its index read held.
        let served = DispatchSemaphore(value: 0)
        let outcome = Locked<(any Error)?>(nil)
        Thread {
            do {
                var batch = WriteBatch()
                batch.put(RecordKey(7), value: LogFixtures.value(7, version: 2, size: 24))
                try store.commit(batch)
                _ = try store.get(RecordKey(8))
            } catch { outcome.withLock { $0 = error } }
            served.signal()
        }.start()
        let servedInTime = served.wait(timeout: .now() + 20) == .success
        fileSystem.release()
        let servedAtAll = servedInTime || served.wait(timeout: .now() + 60) == .success
        try #require(servedAtAll && Self.finished(compacted) != nil, "the commit or the compaction did not finish")
        #expect(servedInTime, "a commit and a read waited for compaction's held lookup")
        #expect(outcome.withLock { $0 } == nil)
        #expect(try compacted.withLock { $0 }?.get().recordsRewritten ?? 0 > 0)
        for key in UInt64(0)..<4_000 {
            let version = key == 7 ? 2 : key % 2 == 0 ? 1 : 0
            #expect(try store.get(RecordKey(key))?.value == LogFixtures.value(key, version: version, size: 24), "key \(key)")
        }
        #expect(try store.verify().isSound)
    }

    /// A store closed while compaction is inside a lookup waits for the lookup to
    /// return, and compaction then stops with `.closed` at its next frame, not with an
    /// index file taken for damaged; the store's files close after it.
    @Test func aStoreClosedDuringALookupStopsCompactionAsClosed() throws {
        let dir = try TemporaryDirectory("compact-closed")
        defer { dir.remove() }
        let (store, fileSystem, compacted, held) = try Self.compactionHeldInALookup(at: dir.path, keys: 2_000, options: LogStoreOptions())
        defer { fileSystem.release() }
        try #require(held, "compaction read no index file")
        let closed = Locked<Result<Void, any Error>?>(nil)
        Thread.detachNewThread {
            let result = Result { try store.close() }
            closed.withLock { $0 = result }
        }
        // The close has told compaction to stop, and waits for it.
        let deadline = ContinuousClock.now + .seconds(120)
        while !store.compactionStopped.load(ordering: .relaxed), ContinuousClock.now < deadline { usleep(1_000) }
        let stopped = store.compactionStopped.load(ordering: .relaxed)
        #expect(stopped, "close did not stop the compaction")
        #expect(closed.withLock { $0 } == nil, "close returned while compaction was inside a lookup")
        fileSystem.release()
        let result = try #require(Self.finished(compacted), "compaction did not finish")
        while closed.withLock({ $0 }) == nil, ContinuousClock.now < deadline + .seconds(120) { usleep(1_000) }
        let closeResult = try #require(closed.withLock { $0 }, "close did not return")
        try closeResult.get()
        let error = #expect(throws: StrataError.self) { try result.get() }
        #expect(error?.code == .closed, "\(String(describing: error))")
        let reopened = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? reopened.close() }
        #expect(try reopened.verify().isSound)
        for key in UInt64(0)..<2_000 {
            #expect(try reopened.get(RecordKey(key))?.value == LogFixtures.value(key, version: key % 2 == 0 ? 1 : 0, size: 24), "key \(key)")
        }
    }

    /// The cap holds the average rate from the start: a lower bound on the time taken.
    @Test func theThrottleHoldsTheAverageRate() {
        var throttle = CompactionThrottle(bytesPerSecond: 1 << 20)
        let start = ContinuousClock.now
        for _ in 0..<8 { throttle.paid(32 << 10) }
        #expect(ContinuousClock.now - start >= .milliseconds(240))
        var unlimited = CompactionThrottle(bytesPerSecond: nil)
        unlimited.paid(1 << 40)
    }
}

/// The in-memory file system, counting the fsyncs of the store's root directory, with
/// a one-shot hook run when it is next fsynced (before the fsync).
final class DirectorySyncHook: FileSystemWrapper, @unchecked Sendable {
    let base: any FileSystem
    let root: String
    let onRootSync = Locked<(@Sendable () -> Void)?>(nil)
    private let rootSyncCount = Locked(0)

    init(base: any FileSystem, root: String) {
        self.base = base
        self.root = root
    }

    func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile { try base.open(path, mode: mode) }

    /// The fsyncs of the root so far.
    var rootSyncs: Int { rootSyncCount.withLock { $0 } }

    func syncDirectory(_ path: String) throws {
        if path == root {
            rootSyncCount.withLock { $0 += 1 }
            if let hook = onRootSync.withLock({ hook in defer { hook = nil }; return hook }) { hook() }
        }
        try base.syncDirectory(path)
    }
}

/// Records which threads fsync which files, and at which nice value.
final class SyncThreadRecorder: FileSystemWrapper, @unchecked Sendable {
    typealias Sync = (path: String, thread: pthread_t, niceness: Int32)
    let base: any FileSystem
    private let syncs = Locked<[Sync]>([])

    init(base: any FileSystem) { self.base = base }

    /// The calling thread's nice value (on Linux a thread has its own).
    static func niceness() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        RecordingFile(base: try base.open(path, mode: mode), syncs: syncs)
    }

    /// Forgets the fsyncs so far.
    func forget() { syncs.withLock { $0.removeAll() } }

    /// The fsyncs of `path`, in order.
    func syncs(of path: String) -> [Sync] {
        syncs.withLock { $0.filter { $0.path == path } }
    }

    private final class RecordingFile: StorageFileWrapper {
        let base: any StorageFile
        let syncs: Locked<[Sync]>

        init(base: any StorageFile, syncs: Locked<[Sync]>) {
            self.base = base
            self.syncs = syncs
        }

        func sync() throws {
            syncs.withLock { $0.append((base.path, pthread_self(), SyncThreadRecorder.niceness())) }
            try base.sync()
        }
    }
}
