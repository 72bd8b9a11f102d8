import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog
@testable import StrataCrashWorker

/// A read-only store meeting a transaction larger than the overlay in the active
/// segment: the tail of a chunked commit that stopped before its commit frame (an
/// import killed halfway) is not held in memory to be thrown away, and a committed one
/// is still taken in, at open and at refresh.
@Suite struct ReadOnlyLargeTransactionTests {
    /// 200,000 records of 2 KiB that compress to little: held whole, they would take
    /// about 400 MiB; on disk they are a few MiB.
    static let tailRecords = 200_000
    static let valueSize = 2 << 10

    /// Keys 1…100 of 64 bytes, in one commit: the store every test starts from.
    static func commitSmall(_ store: LogStore) throws {
        var batch = WriteBatch()
        for key in UInt64(1)...100 { batch.put(RecordKey(key), value: Array(repeating: UInt8(key), count: 64)) }
        try store.commit(batch)
    }

    /// A store holding only ``commitSmall(_:)``'s records: the worker's own peak, for
    /// comparison.
    static func smallStore(at path: String) throws {
        let store = try LogStore.open(at: path, options: LogStoreOptions(), logger: .quiet)
        try commitSmall(store)
        try store.close()
    }

    /// One chunk of a large commit: keys `first`…`first + 4,095`, values of
    /// `valueSize` bytes that are the key and then sevens.
    static func putChunk(_ batch: inout WriteBatch, from first: UInt64) {
        for key in first..<first + 4_096 {
            var value = [UInt8](repeating: 7, count: valueSize)
            withUnsafeBytes(of: key) { value.replaceSubrange(0..<8, with: $0) }
            batch.put(RecordKey(key), value: value)
        }
    }

    /// A store of 100 committed records followed by a chunked commit whose producer
    /// stopped after `tailRecords` records: its frames stay in the active segment, as
    /// a kill leaves them, because the truncate that takes them back fails.
    static func storeWithTornTail(at path: String) throws {
        let fs = FaultInjectingFileSystem(wrapping: POSIXFileSystem())
        var options = LogStoreOptions()
        options.durability = .none
        let store = try LogStore.open(at: path, options: options, fileSystem: fs, logger: .quiet)
        try commitSmall(store)
        fs.inject(.fail(.truncate, matching: .contains("segments/")))
        struct Stop: Error {}
        var next = UInt64(1_000)
        #expect(throws: (any Error).self) {
            try store.commit { batch, _ in
                if next >= 1_000 + UInt64(Self.tailRecords) { throw Stop() }
                Self.putChunk(&batch, from: next)
                next += 4_096
                return true
            }
        }
        try? store.close()
    }

    /// What a read-only open and a verification did in a process of their own.
    struct Run {
        var count: Int
        /// The peak resident set after the open, KiB.
        var peakKiB: Int
        var problems: Int
        /// The peak resident set after the verification, KiB.
        var verifiedPeakKiB: Int
    }

    /// Opens the store read-only and verifies it in a process of its own.
    static func openReadOnlyElsewhere(_ path: String, overlayEntryLimit: Int) throws -> Run {
        let worker = try WorkerProcess(command: "readonly", store: path, seed: UInt64(overlayEntryLimit))
        let outcome = worker.collect()
        func numbers(_ prefix: String) throws -> (Int, Int) {
            let parts = try #require(outcome.lines.last { $0.hasPrefix(prefix + " ") }, "\(outcome.termination): \(outcome.stderr)").split(separator: " ")
            return (try #require(Int(parts[1])), try #require(Int(parts[2])))
        }
        let opened = try numbers("OPENED")
        let verified = try numbers("VERIFIED")
        return Run(count: opened.0, peakKiB: opened.1, problems: verified.0, verifiedPeakKiB: verified.1)
    }

    @Test func aReadOnlyOpenDoesNotHoldATailWithoutItsCommitFrame() throws {
        let directory = try TemporaryDirectory("readonly-tail")
        defer { directory.remove() }
        let small = directory.appending("small")
        let torn = directory.appending("torn")
        try Self.storeWithTornTail(at: torn)
        try Self.smallStore(at: small)
        let segments = try FileManager.default.contentsOfDirectory(atPath: torn + "/segments").sorted()
        let active = try #require(segments.last)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: torn + "/segments/" + active)[.size] as? Int)
        #expect(size > 1 << 20, "the torn tail is in the active segment")

        let baseline = try Self.openReadOnlyElsewhere(small, overlayEntryLimit: 1_000)
        let opened = try Self.openReadOnlyElsewhere(torn, overlayEntryLimit: 1_000)
        #expect(baseline.count == 100)
        #expect(opened.count == 100)
        // Held whole, the tail would raise the peak by about 400 MiB.
        let rise = opened.peakKiB - baseline.peakKiB
        #expect(rise < 64 << 10, "a read-only open's peak rose by \(rise) KiB over an open of the same store without the tail")
        // Its verification reads the tail too, without holding it, and finds the store sound.
        #expect(opened.problems == 0)
        let verifyRise = opened.verifiedPeakKiB - baseline.verifiedPeakKiB
        #expect(verifyRise < 64 << 10, "verifying it peaked \(verifyRise) KiB above verifying the store without the tail")
    }

    /// A read-only open rebuilds a missing index file in memory (it may write none): a
    /// sealed segment holding one chunked commit of `tailRecords` records is read a
    /// frame at a time, its transaction never held whole.
    @Test func aReadOnlyOpenRebuildsTheIndexOfAChunkedCommitWithoutHoldingIt() throws {
        let directory = try TemporaryDirectory("readonly-rebuild")
        defer { directory.remove() }
        let small = directory.appending("small")
        let bulk = directory.appending("bulk")
        try Self.smallStore(at: small)
        do {
            let store = try LogStore.open(at: bulk, options: LogStoreOptions(), logger: .quiet)
            try Self.commitSmall(store)
            var next = UInt64(1_000)
            try store.commit { batch, _ in
                Self.putChunk(&batch, from: next)
                next += 4_096
                return next < 1_000 + UInt64(Self.tailRecords)
            }
            try store.close()
        }
        let indexFiles = try FileManager.default.contentsOfDirectory(atPath: bulk + "/index").filter { $0.hasSuffix(".idx") }
        #expect(!indexFiles.isEmpty)
        for name in indexFiles { try FileManager.default.removeItem(atPath: bulk + "/index/" + name) }

        let baseline = try Self.openReadOnlyElsewhere(small, overlayEntryLimit: 1_000)
        let opened = try Self.openReadOnlyElsewhere(bulk, overlayEntryLimit: 1_000)
        #expect(opened.count == 100 + (Self.tailRecords + 4_095) / 4_096 * 4_096)
        // The index it keeps is some MiB; the transaction held whole would be about 400.
        let rise = opened.peakKiB - baseline.peakKiB
        #expect(rise < 96 << 10, "a read-only open that rebuilt the index in memory peaked \(rise) KiB above one of a small store")
        // Its verification rebuilds the index again in memory (no scratch directory).
        let verifyRise = opened.verifiedPeakKiB - baseline.verifiedPeakKiB
        #expect(verifyRise < 96 << 10, "verifying it peaked \(verifyRise) KiB above verifying a small store")
        // Nothing was written: the index files are still missing.
        #expect(try FileManager.default.contentsOfDirectory(atPath: bulk + "/index").filter { $0.hasSuffix(".idx") }.isEmpty)
    }

    /// A writer over `fileSystem` holding SealAtOpenTests' first commits, and a store
    /// opened read-only on `memory` beside it.
    static func writerAndReader(writingThrough fileSystem: any FileSystem, memory: InMemoryFileSystem) throws -> (writer: LogStore, reader: LogStore) {
        let writer = try LogStore.open(at: SealAtOpenTests.root, options: SealAtOpenTests.options(), fileSystem: fileSystem, logger: .quiet)
        try SealAtOpenTests.writeSmall(writer)
        let reader = try LogStore.open(at: SealAtOpenTests.root, options: SealAtOpenTests.readOnlyOptions(), fileSystem: memory, logger: .quiet)
        return (writer, reader)
    }

    /// The chunked commit was committed but its seal lost (SealAtOpenTests): a store
    /// opened read-only before it takes it in at its next refresh, and a read-only
    /// open after it replays it.
    @Test func aCommittedLargeTransactionIsTakenInByRefreshAndByAReadOnlyOpen() throws {
        let bulk = UInt64(41)...140
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let (writer, reader) = try Self.writerAndReader(writingThrough: fs, memory: memory)
        defer { try? reader.close() }
        try SealAtOpenTests.check(reader, SealAtOpenTests.model(bulk: bulk, bulkCommitted: false), "before the commit")
        // A write per chunk of 7, the commit frame, then the seal frame, which fails.
        fs.inject(.fail(.write, matching: .contains("segments/"), on: .nth((bulk.count + 6) / 7 + 2)))
        #expect(throws: StrataError.self) { try SealAtOpenTests.writeBulk(writer, bulk: bulk) }
        let committed = SealAtOpenTests.model(bulk: bulk, bulkCommitted: true)
        #expect(try reader.refresh())
        try SealAtOpenTests.check(reader, committed, "after the refresh")
        let opened = try LogStore.open(at: SealAtOpenTests.root, options: SealAtOpenTests.readOnlyOptions(), fileSystem: memory, logger: .quiet)
        try SealAtOpenTests.check(opened, committed, "opened read-only")
        try opened.close()
        try? writer.close()
    }

    /// While a chunked commit is being written, a refresh takes in none of it and
    /// fails on none of it; once it is committed, the next refresh takes in all of it.
    @Test func aRefreshWaitsForAChunkedCommitBeingWritten() throws {
        let bulk = UInt64(41)...140
        let memory = InMemoryFileSystem()
        let (writer, reader) = try Self.writerAndReader(writingThrough: memory, memory: memory)
        defer { try? writer.close() }
        defer { try? reader.close() }
        let before = SealAtOpenTests.model(bulk: bulk, bulkCommitted: false)
        var refreshes = 0
        try SealAtOpenTests.writeBulk(writer, bulk: bulk) { next in
            // Chunks written so far are in the segment, their commit frame is not.
            guard next > bulk.lowerBound + 40 else { return }
            refreshes += 1
            #expect(try !reader.refresh())
            try SealAtOpenTests.check(reader, before, "during the commit")
        }
        #expect(refreshes > 3)
        #expect(try reader.refresh())
        try SealAtOpenTests.check(reader, SealAtOpenTests.model(bulk: bulk, bulkCommitted: true), "after the commit")
    }
}
