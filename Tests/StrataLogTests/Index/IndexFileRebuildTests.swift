import Testing
import Logging
import StrataTestSupport
@testable import StrataLog

/// The bounded rebuild (`IndexFileRebuild`) makes the bytes the in-memory builder
/// makes, whatever the segment holds and however small its sort batches, and a store
/// whose index files are deleted reopens through it with every key and term.
@Suite struct IndexFileRebuildTests {
    static let root = "/store"

    /// A sealed segment of many transactions: keys rewritten (with other terms),
    /// deleted, written twice in one transaction, some with blobs.
    static func store(_ fs: InMemoryFileSystem, seed: UInt64) throws -> LogStore {
        var options = LogStoreOptions()
        options.overlayEntryLimit = 1 << 20
        options.segmentSizeLimit = 64 << 20
        let store = try LogStore.open(at: root, options: options, fileSystem: fs, logger: .quiet)
        var rng = SplitMix(seed: seed)
        for t in 0..<40 {
            var batch = WriteBatch()
            for _ in 0..<(1 + Int(rng.next() % 12)) {
                let key = RecordKey(rng.next() % 60)
                if rng.next() % 6 == 0 {
                    batch.delete(key)
                } else {
                    let blobs = rng.next() % 5 == 0 ? [try store.writeBlob(LogFixtures.value(key.rawValue, version: t, size: 40))] : []
                    batch.put(key, value: LogFixtures.value(key.rawValue, version: t, size: 8 + Int(rng.next() % 50)), blobs: blobs,
                              terms: [IndexTerm(index: 1, value: [UInt8(rng.next() % 4)]), IndexTerm(index: 3, value: Array("t\(t)".utf8))])
                }
            }
            try store.commit(batch)
        }
        try store.sealActiveSegment()
        return store
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func streamedBytesEqualTheInMemoryBuild(seed: UInt64) throws {
        let fs = InMemoryFileSystem()
        let store = try Self.store(fs, seed: seed)
        let storeID = store.state.withLock { $0.manifest.storeID }
        try store.close()
        let segment = try fs.open(Self.root + "/segments/000001.seg", mode: .readOnly)
        let (expected, scan) = try IndexFileBuilder.scanning(segment, segmentID: 1, storeID: storeID)
        #expect(scan.sealed)
        for batch in [2, 3, 7, 1_000] {
            let rebuild = IndexFileRebuild(fileSystem: fs, scratchBase: Self.root + "/index/000001.rebuild", sortBatch: batch)
            _ = try rebuild.rebuild(segment, segmentID: 1, storeID: storeID, to: Self.root + "/index/out.tmp")
            let file = try fs.open(Self.root + "/index/out.tmp", mode: .readOnly)
            #expect(try file.readExactly(Int(try file.size()), at: 0) == expected, "sort batch \(batch)")
            try file.close()
            // Only the output is left: the scratch files are gone.
            #expect(try fs.contentsOfDirectory(Self.root + "/index").filter { $0.contains("rebuild") }.isEmpty)
        }
    }

    /// A provisional scan hands records over frame by frame, yet reports what a
    /// transaction-at-a-time scan reports — on the whole segment and on every cut of it.
    @Test func aProvisionalScanReportsWhatAWholeTransactionScanDoes() throws {
        let fs = InMemoryFileSystem()
        var options = LogStoreOptions()
        options.blockSize = 256
        let store = try LogStore.open(at: Self.root, options: options, fileSystem: fs, logger: .quiet)
        for t in 0..<6 {
            var batch = WriteBatch()
            for k in 0..<(3 + t * 5) { batch.put(RecordKey(UInt64(k)), value: LogFixtures.value(UInt64(k), version: t, size: 90)) }
            try store.commit(batch)
        }
        try store.sealActiveSegment()
        try store.close()
        let path = Self.root + "/segments/000001.seg"
        let whole = try fs.open(path, mode: .readOnly)
        let bytes = try whole.readExactly(Int(try whole.size()), at: 0)
        try whole.close()
        for cut in stride(from: bytes.count, to: 48, by: -37) {
            let file = ByteArrayFile(path: "cut", bytes: Array(bytes[..<cut]))
            var grouped: [SegmentScanner.ScannedRecord] = [], streamed: [SegmentScanner.ScannedRecord] = []
            let a = try SegmentScanner(file: file, segmentID: 1, statistics: nil).scan(collect: false) { grouped += $0 }
            let b = try SegmentScanner(file: file, segmentID: 1, statistics: nil).scan(collect: false, provisional: true) { streamed += $0 }
            #expect(a.validEnd == b.validEnd && a.recordBytes == b.recordBytes && a.minSequence == b.minSequence && a.maxSequence == b.maxSequence, "cut \(cut)")
            #expect(a.sealed == b.sealed && a.damage?.offset == b.damage?.offset, "cut \(cut)")
            // The provisional scan may have handed over a transaction the cut left
            // without its commit; everything the grouped scan kept comes first.
            #expect(Array(streamed.prefix(grouped.count)).map(\.location) == grouped.map(\.location), "cut \(cut)")
            if a.damage == nil { #expect(streamed.count == grouped.count, "cut \(cut)") }
        }
    }

    /// `verify` rebuilds a sealed segment's index file into a scratch file and compares
    /// it a chunk at a time: a sound file passes, a changed byte before the footer is
    /// reported, and no scratch file is left either way.
    @Test func verifyComparesAgainstAStreamedRebuild() throws {
        let fs = InMemoryFileSystem()
        let store = try Self.store(fs, seed: 4)
        #expect(try store.verify().isSound)
        #expect(try store.verify().indexFilesChecked == 1)
        try store.close()
        let path = Self.root + "/index/000001.idx"
        let file = try fs.open(path, mode: .readWrite)
        let byte = try file.readExactly(1, at: 40)
        try file.write([byte[0] ^ 0x10], at: 40)
        try file.close()
        let reopened = try LogStore.open(at: Self.root, options: LogStoreOptions(), fileSystem: fs, logger: .quiet)
        defer { try? reopened.close() }
        let report = try reopened.verify()
        #expect(report.problems.contains { $0.message.contains("index file disagrees") }, "\(report)")
        #expect(try fs.contentsOfDirectory(Self.root + "/index").allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test func aStoreWhoseIndexFilesAreDeletedReopensWhole() throws {
        let fs = InMemoryFileSystem()
        let store = try Self.store(fs, seed: 9)
        var expected: [RecordKey: Record] = [:]
        for key in try store.keys() { expected[key] = try store.get(key) }
        let terms = try (UInt8(0)..<4).map { try store.keys(for: IndexTerm(index: 1, value: [$0])) }
        try store.close()
        for name in try fs.contentsOfDirectory(Self.root + "/index") { try fs.remove(Self.root + "/index/" + name) }
        var options = LogStoreOptions()
        options.bulkSortBatch = 3
        let reopened = try LogStore.open(at: Self.root, options: options, fileSystem: fs, logger: .quiet)
        defer { try? reopened.close() }
        #expect(try reopened.keys() == expected.keys.sorted())
        for (key, record) in expected { #expect(try reopened.get(key) == record) }
        #expect(try (UInt8(0)..<4).map { try reopened.keys(for: IndexTerm(index: 1, value: [$0])) } == terms)
        #expect(try reopened.verify().isSound)
        #expect(try fs.contentsOfDirectory(Self.root + "/index").allSatisfy { !$0.hasSuffix(".tmp") })
    }
}
