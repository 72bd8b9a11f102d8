import Testing
import Foundation
import Logging
import StrataTestSupport
@testable import StrataLog

@Suite struct CompactionTests {
    static func directoryBytes(_ path: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: path).reduce(0) { $0 + (try FileBytes.size(path + "/" + $1)) }
    }

    /// A few keys written over and over leave their garbage in the active segment,
    /// which rolls only at its size limit: an unforced compaction seals it once its own
    /// garbage share passes the threshold, and reclaims it. An active segment below the
    /// threshold is left to fill.
    @Test func theActiveSegmentsOwnGarbageIsReclaimed() throws {
        let dir = try TemporaryDirectory("compact-active")
        defer { dir.remove() }
        var expected: [UInt64: [UInt8]] = [:]
        do {
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            // 20 keys, each written 50 times: 98% of the active segment is superseded.
            for round in 0..<50 {
                var batch = WriteBatch()
                for key in UInt64(0)..<20 {
                    let value = LogFixtures.value(key, version: round, size: 100)
                    batch.put(RecordKey(key), value: value)
                    expected[key] = value
                }
                try store.commit(batch)
            }
            let active = store.state.withLock { $0.manifest.activeSegment?.id }
            #expect(store.usage.recordGarbageRatio > 0.9)
            let report = try store.compact()
            #expect(report.segmentsCompacted == 1, "\(report)")
            #expect(store.state.withLock { $0.manifest.activeSegment?.id } != active, "the active segment was sealed")
            #expect(store.usage.recordGarbageRatio == 0)
            #expect(try LogFixtures.values(of: store) == expected)

            // Mostly live: 100 new keys once each and one of them twice (1% garbage).
            for key in UInt64(20)..<120 {
                var batch = WriteBatch()
                let value = LogFixtures.value(key, size: 100)
                batch.put(RecordKey(key), value: value)
                expected[key] = value
                try store.commit(batch)
            }
            var batch = WriteBatch()
            expected[20] = LogFixtures.value(20, version: 1, size: 100)
            batch.put(RecordKey(20), value: expected[20]!)
            try store.commit(batch)
            let filling = store.state.withLock { $0.manifest.activeSegment?.id }
            let idle = try store.compact()
            #expect(idle.segmentsCompacted == 0, "\(idle)")
            #expect(store.state.withLock { $0.manifest.activeSegment?.id } == filling, "left to fill")
            try store.close()
        }
        let reopened = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(try LogFixtures.values(of: reopened) == expected)
        #expect(try reopened.verify().isSound)
        try reopened.close()
    }

    @Test func compactionShrinksTheStoreAndKeepsEveryLiveValue() throws {
        let dir = try TemporaryDirectory("compact")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSizeLimit = 16 << 10
        options.compactionBatchBytes = 40 << 10 // several groups, several swaps
        var expected: [UInt64: [UInt8]] = [:]
        do {
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            for round in 0..<8 {
                var batch = WriteBatch()
                for key in UInt64(0)..<300 {
                    if round == 7 && key % 4 == 0 {
                        batch.delete(RecordKey(key))
                        expected[key] = nil
                    } else if round < 7 || key % 3 == 0 {
                        let value = LogFixtures.value(key, version: round, size: 80)
                        batch.put(RecordKey(key), value: value)
                        expected[key] = value
                    }
                }
                try store.commit(batch)
            }
            let before = try Self.directoryBytes(dir.appending("segments"))
            let report = try store.compact()
            let after = try Self.directoryBytes(dir.appending("segments"))
            #expect(report.segmentsCompacted > 1)
            #expect(after < before / 3, "\(report)")
            #expect(store.statistics.compactions == 1)
            for key in UInt64(0)..<300 { #expect(try store.get(RecordKey(key))?.value == expected[key]) }
            #expect(try store.verify().isSound)
            try store.close()
        }
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? store.close() }
        #expect(store.count == expected.count)
        for key in UInt64(0)..<300 { #expect(try store.get(RecordKey(key))?.value == expected[key], "key \(key)") }
        #expect(try store.verify().isSound)
    }

    /// A compaction that meets a damaged segment stops with `.corrupt`, and what it
    /// wrote that no manifest names goes with it: the directories hold only the files
    /// the manifest lists (the groups swapped in before the damage stay).
    @Test func aCompactionStoppedByDamageLeavesNoFilesBehind() throws {
        let dir = try TemporaryDirectory("compact-damaged")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.overlayEntryLimit = 100
        options.compressRecords = false
        do {
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            // Keys 0..<300 in three segments (A, B, C), ten keys a transaction, then
            // half of A's keys and half of B's written again: A and B, both half
            // garbage, are compacted in one group, A first.
            for first in stride(from: UInt64(0), to: 300, by: 10) {
                var batch = WriteBatch()
                for key in first..<first + 10 { batch.put(RecordKey(key), value: LogFixtures.value(key, size: 80)) }
                try store.commit(batch)
            }
            for first in [0, 10, 20, 30, 40, 100, 110, 120, 130, 140] as [UInt64] {
                var batch = WriteBatch()
                for key in first..<first + 10 { batch.put(RecordKey(key), value: LogFixtures.value(key, version: 1, size: 80)) }
                try store.commit(batch)
            }
            try store.close()
        }
        // B damaged three quarters in, among its live records: the compaction has
        // copied A's live records, and some of B's, when it meets the damage.
        let sealed = try FieldEditTests.sealedIDs(dir.path).sorted()
        try #require(sealed.count >= 3)
        let path = StoreSurgery.segment(dir.path, sealed[1])
        var bytes = try FileBytes.read(path)
        bytes[bytes.count * 3 / 4] ^= 0xFF
        try FileBytes.write(bytes, to: path)

        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? store.close() }
        let error = #expect(throws: StrataError.self) { try store.compact(force: true) }
        #expect(error?.code == .corrupt)
        let manifest = try StoreSurgery.manifest(dir.path)
        let listed = Set(manifest.segments.map(\.id))
        let segments = try FileManager.default.contentsOfDirectory(atPath: dir.appending("segments")).compactMap { StorePaths.parseNumber($0, suffix: ".seg") }
        let indexFiles = try FileManager.default.contentsOfDirectory(atPath: dir.appending("index")).compactMap { StorePaths.parseNumber($0, suffix: ".idx") }
        #expect(Set(segments) == listed)
        #expect(Set(indexFiles).isSubset(of: listed))
        let blobs = try FileManager.default.contentsOfDirectory(atPath: dir.appending("blobs")).compactMap { StorePaths.parseNumber($0, suffix: ".blob") }
        #expect(Set(blobs) == Set(manifest.blobFiles.map(\.id)))
    }

    /// A swap whose manifest was renamed into place but whose directory fsync failed:
    /// the store fails, its memory still holds the old manifest, and the disk the new
    /// one, which names the step's outputs. They stay, and the store reopens whole.
    /// Keys 0…299, then the even ones again, in commits of 10, and the active segment
    /// sealed: every segment of the first round keeps live records, which the first
    /// step copies. Returns each key's last value.
    static func writeEveryKeyThenTheEvenOnes(_ store: LogStore) throws -> [UInt64: [UInt8]] {
        var expected: [UInt64: [UInt8]] = [:]
        for (round, keys) in [Array(UInt64(0)..<300), stride(from: UInt64(0), to: 300, by: 2).map { $0 }].enumerated() {
            for first in stride(from: 0, to: keys.count, by: 10) {
                var batch = WriteBatch()
                for key in keys[first..<min(first + 10, keys.count)] {
                    let value = LogFixtures.value(key, version: round, size: 80)
                    batch.put(RecordKey(key), value: value)
                    expected[key] = value
                }
                try store.commit(batch)
            }
        }
        try store.sealActiveSegment()
        return expected
    }

    @Test func theOutputsOfASwapWhoseManifestReachedTheDiskStay() throws {
        let faults = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        var options = LogStoreOptions()
        options.overlayEntryLimit = 100
        var expected: [UInt64: [UInt8]] = [:]
        do {
            let store = try LogStore.open(at: "/s", options: options, fileSystem: faults, logger: .quiet)
            expected = try Self.writeEveryKeyThenTheEvenOnes(store)
            // The fault set as the first swap begins: its outputs are written by then,
            // and its manifest is the next one written.
            store.compactionWillSwap.withLock {
                $0 = { _ in _ = faults.inject(.fail(.syncDirectory, errno: EIO, matching: Fault.PathPattern("the store's directory") { $0 == "/s" })) }
            }
            let listed = try faults.contentsOfDirectory("/s/segments").count
            #expect(throws: StrataError.self) { try store.compact(force: true) }
            #expect(try faults.contentsOfDirectory("/s/segments").count > listed, "the step wrote its outputs")
            faults.clearFaults()
            try? store.close()
        }
        let reopened = try LogStore.open(at: "/s", options: options, fileSystem: faults, logger: .quiet)
        defer { try? reopened.close() }
        for (key, value) in expected { #expect(try reopened.get(RecordKey(key))?.value == value, "key \(key)") }
        #expect(try reopened.verify().isSound)
    }

    /// Compaction's memory follows the overlay limit, not the segment size: what it
    /// writes seals at `overlayEntryLimit` keys (each output's index is built in memory)
    /// and its groups end at four times that many input keys (their relocations are held
    /// until the swap). Every value still reads back, before and after a reopen.
    @Test func compactionOutputsAndGroupsFollowTheOverlayLimit() throws {
        let dir = try TemporaryDirectory("compact-keys")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.overlayEntryLimit = 100
        var expected: [UInt64: [UInt8]] = [:]
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        // 2,000 keys in commits of 50: sealed every 100 keys, 20 segments.
        for start in stride(from: UInt64(0), to: 2_000, by: 50) {
            var batch = WriteBatch()
            for key in start..<(start + 50) {
                let value = LogFixtures.value(key, size: 60)
                batch.put(RecordKey(key), value: value)
                expected[key] = value
            }
            try store.commit(batch)
        }
        // Every third key rewritten: garbage in every segment.
        var batch = WriteBatch()
        for key in stride(from: UInt64(0), to: 2_000, by: 3) {
            let value = LogFixtures.value(key, version: 1, size: 60)
            batch.put(RecordKey(key), value: value)
            expected[key] = value
        }
        try store.commit(batch)
        try store.sealActiveSegment()
        let before = Set(store.state.withLock { $0.index.files.map(\.segmentID) })
        let generation = store.state.withLock { $0.manifest.generation }
        let report = try store.compact(force: true)
        // 20 inputs of 100 keys at 400 a group: five groups, a manifest swap each.
        #expect(report.segmentsCompacted >= 20, "\(report)")
        #expect(store.state.withLock { $0.manifest.generation } - generation >= 5)
        let outputs = store.state.withLock { $0.index.files.filter { !before.contains($0.segmentID) } }
        #expect(outputs.count == report.segmentsWritten)
        #expect(outputs.allSatisfy { $0.footer.entryCount <= 100 }, "\(outputs.map(\.footer.entryCount))")
        #expect(report.segmentsWritten >= 13, "1,333 live keys at 100 a segment: \(report)")
        for key in UInt64(0)..<2_000 { #expect(try store.get(RecordKey(key))?.value == expected[key]) }
        #expect(try store.verify().isSound)
        try store.close()
        let reopened = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? reopened.close() }
        #expect(reopened.count == expected.count)
        for key in UInt64(0)..<2_000 { #expect(try reopened.get(RecordKey(key))?.value == expected[key], "key \(key)") }
    }

    @Test func blobGarbageIsReclaimedAndLiveBlobsReadBack() throws {
        let dir = try TemporaryDirectory("blobgc")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.blobFileSizeLimit = 64 << 10
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        var photos: [UInt64: [UInt8]] = [:]
        for key in UInt64(0)..<40 {
            let photo = LogFixtures.noise(8 << 10, seed: key)
            let ref = try store.writeBlob(photo)
            var batch = WriteBatch()
            batch.put(RecordKey(key), value: [UInt8(key)], blobs: [ref])
            try store.commit(batch)
            photos[key] = photo
        }
        var deletes = WriteBatch()
        for key in UInt64(0)..<40 where key % 5 != 0 {
            deletes.delete(RecordKey(key))
            photos[key] = nil
        }
        try store.commit(deletes)
        let before = try Self.directoryBytes(dir.appending("blobs"))
        let report = try store.compact()
        let after = try Self.directoryBytes(dir.appending("blobs"))
        #expect(report.blobFilesCollected > 0, "\(report)")
        #expect(after < before / 2, "blob bytes \(before) → \(after)")
        for (key, photo) in photos {
            let record = try #require(try store.get(RecordKey(key)))
            #expect(try store.readBlob(record.blobs[0]) == photo)
        }
        try store.close()
        let reopened = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? reopened.close() }
        for (key, photo) in photos {
            let record = try #require(try reopened.get(RecordKey(key)))
            #expect(try reopened.readBlob(record.blobs[0]) == photo)
        }
        #expect(try reopened.verify().isSound)
    }

    @Test func deletedKeysStayDeletedAfterCompactionAndReopen() throws {
        let dir = try TemporaryDirectory("tombstones")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSizeLimit = 4 << 10
        do {
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            for key in UInt64(0)..<100 {
                var batch = WriteBatch()
                batch.put(RecordKey(key), value: LogFixtures.value(key, size: 60))
                try store.commit(batch)
            }
            // Compact only part of the log first: tombstones must survive while older
            // versions remain in segments that were not rewritten.
            for key in UInt64(0)..<100 where key % 2 == 0 {
                var batch = WriteBatch()
                batch.delete(RecordKey(key))
                try store.commit(batch)
            }
            try store.compact()
            try store.compact(force: true)
            #expect(store.count == 50)
            try store.close()
        }
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? store.close() }
        #expect(store.count == 50)
        for key in UInt64(0)..<100 { #expect(try store.contains(RecordKey(key)) == (key % 2 == 1)) }
    }

    @Test func readersAndWritersKeepWorkingDuringCompaction() async throws {
        let dir = try TemporaryDirectory("concurrent-compact")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSizeLimit = 8 << 10
        options.durability = .none
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        for round in 0..<4 {
            var batch = WriteBatch()
            for key in UInt64(0)..<200 { batch.put(RecordKey(key), value: LogFixtures.value(key, version: round, size: 64)) }
            try store.commit(batch)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<5 { try store.compact(force: true) }
            }
            group.addTask {
                for i in 0..<3000 {
                    let key = UInt64(i % 200)
                    let value = try store.get(RecordKey(key))?.value
                    #expect(value != nil)
                }
            }
            group.addTask {
                for i in 0..<200 {
                    var batch = WriteBatch()
                    batch.put(RecordKey(UInt64(i)), value: LogFixtures.value(UInt64(i), version: 99, size: 64))
                    try store.commit(batch)
                }
            }
            try await group.waitForAll()
        }
        for key in UInt64(0)..<200 {
            #expect(try store.get(RecordKey(key))?.value == LogFixtures.value(key, version: 99, size: 64))
        }
        #expect(try store.verify().isSound)
        try store.close()
    }
}
