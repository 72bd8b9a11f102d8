import Testing
import StrataTestSupport
@testable import StrataLog

/// Compaction of a segment holding one transaction larger than the overlay (a chunked
/// commit's) reads it a frame at a time and writes its kept records in pieces of at
/// most `overlayEntryLimit`, each with the original sequence: the result is the store it
/// compacted — values, blobs, terms, counters a recount agrees with — and no output
/// segment's index holds more than a piece and a transaction's worth of keys. Failures
/// at each step leave the store as it was or as compacted.
@Suite struct CompactionLargeTransactionTests {
    static let root = "/store"

    static func options() -> LogStoreOptions {
        var options = LogStoreOptions()
        options.overlayEntryLimit = 16
        options.bulkSortBatch = 9
        options.durability = .none
        options.segmentSizeLimit = 1 << 20
        return options
    }

    /// Keys 1…300 in one chunked commit (some with blobs), then half of them
    /// overwritten and a few deleted in small commits: the big segment is mostly garbage.
    static func fill(_ store: LogStore) throws -> [UInt64: [UInt8]] {
        var model: [UInt64: [UInt8]] = [:]
        var next: UInt64 = 1
        try store.commit { batch, writeBlob in
            for key in next...min(300, next + 24) {
                let value = LogFixtures.value(key, version: 1, size: 20 + Int(key % 70))
                batch.put(RecordKey(key), value: value, blobs: key % 11 == 0 ? [try writeBlob(value + value)] : [], terms: [IndexTerm(index: 1, value: [UInt8(key % 6)])])
                model[key] = value
            }
            next += 25
            return next <= 300
        }
        for start in stride(from: UInt64(1), through: 300, by: 30) {
            var batch = WriteBatch()
            for key in start..<(start + 15) {
                let value = LogFixtures.value(key, version: 2, size: 30)
                batch.put(RecordKey(key), value: value, terms: [IndexTerm(index: 1, value: [UInt8(key % 6)])])
                model[key] = value
            }
            batch.delete(RecordKey(start + 20))
            model[start + 20] = nil
            try store.commit(batch)
        }
        try store.sealActiveSegment()
        return model
    }

    static func check(_ store: LogStore, _ model: [UInt64: [UInt8]], _ context: String) throws {
        try StoreModelCheck.expect(store, holds: model, residues: 6, context)
    }

    /// Pieces end at about a MiB of records too: a transaction of 4 MiB of large
    /// records, half of them kept, under the default overlay limit, is copied as
    /// several transactions with its sequence, none past a MiB and a record.
    @Test func aTransactionOfLargeRecordsIsCopiedInPiecesOfAMiB() throws {
        let fs = InMemoryFileSystem()
        var options = LogStoreOptions()
        options.durability = .none
        let store = try LogStore.open(at: Self.root, options: options, fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        var model: [UInt64: [UInt8]] = [:]
        var batch = WriteBatch()
        for key in UInt64(1)...2_000 {
            let value = LogFixtures.value(key, size: 2_000)
            batch.put(RecordKey(key), value: value, terms: [IndexTerm(index: 1, value: [UInt8(key % 6)])])
            model[key] = value
        }
        try store.commit(batch)
        let sequence = store.lastSequence
        var overwrite = WriteBatch()
        for key in stride(from: UInt64(1), through: 2_000, by: 2) {
            let value = LogFixtures.value(key, version: 1, size: 40)
            overwrite.put(RecordKey(key), value: value, terms: [IndexTerm(index: 1, value: [UInt8(key % 6)])])
            model[key] = value
        }
        try store.commit(overwrite)
        try store.sealActiveSegment()
        let before = Set(store.state.withLock { $0.manifest.segments.map(\.id) })
        try store.compact(force: true)
        try Self.check(store, model, "after compaction")
        // The output's transactions, read back: all of the big one's sequence, each at
        // most a MiB of records plus the one that crossed it.
        var pieces: [Int64] = []
        for id in store.state.withLock({ $0.manifest.segments.filter { !before.contains($0.id) }.map(\.id) }) {
            let file = try #require(store.state.withLock { $0.segmentFiles[id] })
            var bytes: Int64 = 0
            _ = try SegmentScanner(file: file, segmentID: id, statistics: nil).scan(collect: false) { records in
                guard records.first?.record.sequence == sequence else { return }
                bytes = records.reduce(0) { $0 + Int64($1.location.recordLength) }
                pieces.append(bytes)
            }
        }
        #expect(pieces.count >= 2, "\(pieces)")
        #expect(pieces.allSatisfy { $0 <= Int64(LogStore.pieceBytes + 2_100) }, "\(pieces)")
        #expect(pieces.reduce(0, +) > 1_000 * 2_000)
    }

    /// A superseded transaction kept for a retention, which wrote one key twice a few
    /// MiB apart: its pieces must not keep both writes (only the last is a version),
    /// even when its copy spans several outputs, and reads as of it answer the last.
    @Test func aKeyWrittenTwiceInAKeptTransactionKeepsOnlyItsLastWrite() throws {
        let fs = InMemoryFileSystem()
        var options = LogStoreOptions()
        options.durability = .none
        // Outputs seal after each piece.
        options.segmentSizeLimit = 16 << 10
        let store = try LogStore.open(at: Self.root, options: options, fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        // A transaction before it in its segment, at the retention: the segment has
        // something to reclaim.
        var first = WriteBatch()
        first.put(RecordKey(9_999), value: [1])
        try store.commit(first)
        var batch = WriteBatch()
        var model: [UInt64: [UInt8]] = [:]
        for key in UInt64(1)...1_500 {
            let value = LogFixtures.value(key, size: 2_000)
            batch.put(RecordKey(key), value: value)
            model[key] = value
        }
        let last = LogFixtures.value(1, version: 9, size: 2_000)
        batch.put(RecordKey(1), value: last)
        model[1] = last
        try store.commit(batch)
        let sequence = store.lastSequence
        var overwrite = WriteBatch()
        for key in UInt64(1)...1_500 { overwrite.put(RecordKey(key), value: LogFixtures.value(key, version: 1, size: 30)) }
        overwrite.put(RecordKey(9_999), value: [2])
        try store.commit(overwrite)
        store.setVersionRetention { _ in VersionRetention(after: sequence - 1) }
        #expect(try store.compact(force: true).recordsRewritten >= 1_500)
        // One copy of the key at that sequence in all the outputs' indexes.
        let copies = try store.state.withLock { $0.index.files }.compactMap { try $0.entry(RecordKey(1)) }.filter { $0.sequence == sequence }
        #expect(copies.count == 1, "\(copies.map(\.location))")
        let past = try store.snapshot(asOf: sequence)
        for key in UInt64(1)...1_500 { #expect(try past.get(RecordKey(key))?.value == model[key], "key \(key)") }
        #expect(try store.verify().isSound)
    }

    @Test func aLargeTransactionIsCopiedInPiecesAndTheStoreIsUnchanged() throws {
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        let model = try Self.fill(store)
        let big = try #require(store.state.withLock { $0.index.files.max { $0.footer.entryCount < $1.footer.entryCount } })
        #expect(big.footer.entryCount == 300)
        let report = try store.compact(force: true)
        #expect(report.recordsRewritten > 16)
        try Self.check(store, model, "after compaction")
        // No output holds the transaction whole: each index stays within the limit
        // (plus one piece appended before the output sealed).
        let files = store.state.withLock { $0.index.files }
        #expect(files.count > 1)
        #expect(files.allSatisfy { $0.footer.entryCount <= 2 * 16 }, "\(files.map(\.footer.entryCount))")
        // The counters it swapped in are those a recount finds.
        let usage = store.usage
        try store.close()
        let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        #expect(reopened.usage == usage)
        try Self.check(reopened, model, "after reopening")
        try reopened.compact(force: true)
        try Self.check(reopened, model, "after a second compaction")
        try reopened.close()
    }

    @Test(arguments: [Fault.Operation.write, .sync, .rename, .create, .syncDirectory])
    func aFailureWhileCompactingLeavesTheStoreWhole(operation: Fault.Operation) throws {
        let counting = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        let setUp = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: counting, logger: .quiet)
        let model = try Self.fill(setUp)
        counting.resetCounts()
        try setUp.compact(force: true)
        let total = counting.counts[operation] ?? 0
        try setUp.close()
        #expect(total > 0)
        for occurrence in stride(from: 1, through: total, by: max(1, total / 12)) {
            let memory = InMemoryFileSystem()
            let fs = FaultInjectingFileSystem(wrapping: memory)
            let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
            _ = try Self.fill(store)
            fs.resetCounts()
            fs.inject(.fail(operation, on: .nth(occurrence)))
            _ = try? store.compact(force: true)
            fs.clearFaults()
            try? store.close()
            memory.crash()
            let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: memory, logger: .quiet)
            try Self.check(reopened, model, "\(operation) #\(occurrence)")
            try reopened.close()
        }
    }
}
