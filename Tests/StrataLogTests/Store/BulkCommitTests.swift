import Foundation
import Testing
import Logging
import StrataTestSupport
@testable import StrataLog

/// `LogStore.commit(chunks:)`: a transaction written chunk by chunk, its index sorted
/// through scratch files, checked against a plain map across seals, reopens,
/// compaction, producer failures, injected I/O failures and power loss.
@Suite struct BulkCommitTests {
    static let root = "/store"

    static func options(sortBatch: Int = 7) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 8 << 10
        options.blobFileSizeLimit = 6 << 10
        options.compactionBatchBytes = 4 << 10
        options.bulkSortBatch = sortBatch
        return options
    }

    /// One write of the model: a value with its terms (index 1: the key's residue, so
    /// values repeat; index 2: a per-version tag), or a delete.
    struct Write {
        var key: UInt64
        var value: [UInt8]?
        var blob: Bool
        var terms: [IndexTerm] {
            guard let value else { return [] }
            return [IndexTerm(index: 1, value: [UInt8(truncatingIfNeeded: value.count % 5)]),
                    IndexTerm(index: 2, value: Array("v\(value.first ?? 0)-\(key)".utf8))]
        }
    }

    /// Transaction n: bulk when n is odd (several chunks, keys in no order, some
    /// rewritten from earlier transactions, some deleted), a small commit otherwise.
    static func transaction(_ n: Int) -> [[Write]] {
        var rng = SplitMix(seed: UInt64(n) &* 0x9E37_79B9)
        let chunks = n % 2 == 1 ? 2 + Int(rng.next() % 4) : 1
        var used = Set<UInt64>()
        return (0..<chunks).map { _ in
            (0..<(3 + Int(rng.next() % 9))).compactMap { _ -> Write? in
                let key = rng.next() % 90
                guard used.insert(key).inserted else { return nil }
                if rng.next() % 7 == 0 { return Write(key: key, value: nil, blob: false) }
                let size = 10 + Int(rng.next() % 120)
                return Write(key: key, value: LogFixtures.value(key, version: n, size: size), blob: rng.next() % 5 == 0)
            }
        }
    }

    static func model(after t: Int) -> [UInt64: [UInt8]] {
        var state: [UInt64: [UInt8]] = [:]
        for n in stride(from: 1, through: t, by: 1) {
            for write in transaction(n).joined() { state[write.key] = write.value }
        }
        return state
    }

    /// Commits transactions 1…count; returns the last acknowledged and whether one failed.
    static func run(_ store: LogStore, transactions count: Int = 16, compactEvery: Int = 6) -> (acknowledged: Int, failed: Bool) {
        var acknowledged = 0
        do {
            for n in 1...count {
                var chunks = transaction(n)[...]
                try store.commit { batch, writeBlob in
                    guard let chunk = chunks.popFirst() else { return false }
                    for write in chunk {
                        if let value = write.value {
                            batch.put(RecordKey(write.key), value: value, blobs: write.blob ? [try writeBlob(value + value)] : [], terms: write.terms)
                        } else {
                            batch.delete(RecordKey(write.key))
                        }
                    }
                    return !chunks.isEmpty
                }
                acknowledged = n
                if n % compactEvery == 0 { try store.compact(force: true) }
            }
        } catch {
            return (acknowledged, true)
        }
        return (acknowledged, false)
    }

    /// The store holds exactly `expected`: values, blobs, and both term indexes.
    static func check(_ store: LogStore, _ expected: [UInt64: [UInt8]], _ context: String) throws {
        #expect(store.count == expected.count, "\(context)")
        #expect(try store.keys() == expected.keys.sorted().map { RecordKey($0) }, "\(context)")
        for (key, value) in expected {
            let record = try store.get(RecordKey(key))
            #expect(record?.value == value, "\(context): key \(key)")
            for blob in record?.blobs ?? [] { #expect(try store.readBlob(blob) == value + value, "\(context): blob of \(key)") }
        }
        for residue in UInt8(0)..<5 {
            let want = expected.filter { UInt8($0.value.count % 5) == residue }.keys.sorted().map { RecordKey($0) }
            #expect(try store.keys(for: IndexTerm(index: 1, value: [residue])).sorted() == want, "\(context): term \(residue)")
        }
        for (key, value) in expected.prefix(12) {
            let term = IndexTerm(index: 2, value: Array("v\(value.first ?? 0)-\(key)".utf8))
            #expect(try store.keys(for: term) == [RecordKey(key)], "\(context): tag of \(key)")
        }
    }

    static func scratchFiles(_ fs: any FileSystem) throws -> [String] {
        try fs.contentsOfDirectory(root + "/index").filter { $0.hasSuffix(".tmp") }
    }

    @Test(arguments: [3, 7, 1_000])
    func matchesAMapAcrossSealsCompactionAndReopen(sortBatch: Int) throws {
        let fs = InMemoryFileSystem()
        let options = Self.options(sortBatch: sortBatch)
        do {
            let store = try LogStore.open(at: Self.root, options: options, fileSystem: fs, logger: .quiet)
            let run = Self.run(store)
            #expect(!run.failed)
            try Self.check(store, Self.model(after: 16), "before reopen")
            // The index files a bulk commit streamed are the ones a scan builds, byte for byte.
            let report = try store.verify()
            #expect(report.isSound, "\(report)")
            #expect(try Self.scratchFiles(fs).isEmpty)
            try store.close()
        }
        let store = try LogStore.open(at: Self.root, options: options, fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        try Self.check(store, Self.model(after: 16), "after reopen")
        try store.compact(force: true)
        try Self.check(store, Self.model(after: 16), "after compaction")
    }

    /// A spill sorter's entry for `key`: tombstones and blob references among them.
    static func entry(_ key: UInt64) -> IndexEntry {
        IndexEntry(key: RecordKey(key), sequence: key, isTombstone: key % 9 == 0,
                   location: RecordLocation(segment: 1, frameOffset: UInt32(key), frameLength: 9, recordOffset: 4, recordLength: 3),
                   blobs: key % 4 == 0 ? [BlobRef(file: 1, offset: key, length: 5, checksum: UInt32(key))] : [])
    }

    @Test func aSortedLoadSpillsOneRunAndAShuffledOneSeveral() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/scratch")
        func sorter() -> SpillSorter<IndexEntry> {
            SpillSorter(path: "/scratch/s.tmp", fileSystem: fs, runLimit: 10,
                        encode: IndexFileEncoder.append, decode: { try IndexFileEncoder.readEntry(&$0, segment: 1) })
        }
        var sorted = sorter()
        for key in UInt64(0)..<95 { try sorted.add(Self.entry(key)) }
        var got: [IndexEntry] = []
        try sorted.drain { got.append($0) }
        #expect(got == (0..<95).map(Self.entry))
        #expect(!fs.exists("/scratch/s.tmp"))

        var shuffled = sorter()
        var rng = SplitMix(seed: 5)
        let keys = (UInt64(0)..<95).map { ($0, rng.next()) }.sorted { $0.1 < $1.1 }.map(\.0)
        for key in keys { try shuffled.add(Self.entry(key)) }
        #expect(shuffled.runCount > 1)
        got = []
        try shuffled.drain { got.append($0) }
        #expect(got == (0..<95).map(Self.entry))
    }

    /// More runs than a drain reads at once are merged ahead into longer runs first,
    /// no more than it takes: items in order, no merge wider than the fan-in, the
    /// scratch file removed.
    @Test(arguments: [2, 3, 7])
    func entriesBeyondTheFanInAreMergedAheadInOrder(fanIn: Int) throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/scratch")
        var sorter = SpillSorter<IndexEntry>(path: "/scratch/f.tmp", fileSystem: fs, runLimit: 10, fanIn: fanIn,
                                             encode: IndexFileEncoder.append, decode: { try IndexFileEncoder.readEntry(&$0, segment: 1) })
        var rng = SplitMix(seed: 17)
        let keys = (UInt64(0)..<400).map { ($0, rng.next()) }.sorted { $0.1 < $1.1 }.map(\.0)
        for key in keys { try sorter.add(Self.entry(key)) }
        let spilled = sorter.runCount
        #expect(spilled > fanIn)
        var got: [IndexEntry] = []
        try sorter.drain { got.append($0) }
        #expect(got == (0..<400).map(Self.entry))
        #expect(sorter.widestMerge == fanIn)
        // Each merge ahead of f runs takes the count down by f − 1, to the fan-in.
        #expect(sorter.runsMergedAhead >= (spilled - fanIn) / (fanIn - 1) * fanIn)
        #expect(!fs.exists("/scratch/f.tmp"))
    }

    /// The merge keeps each run's current item in its heap: shuffled terms over many
    /// runs, values short (inline) and long (on the heap), equal values split across
    /// runs, come out in the file's order, as a plain sort gives them.
    @Test func shuffledTermsMergeFromManyRunsInTheFilesOrder() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/scratch")
        var sorter = SpillSorter<IndexTermEntry>(path: "/scratch/t.tmp", fileSystem: fs, runLimit: 7,
                                                 encode: IndexFileEncoder.append, decode: IndexFileEncoder.readTerm)
        var rng = SplitMix(seed: 11)
        var terms: [IndexTermEntry] = []
        for key in UInt64(1)...300 {
            let length = Int(rng.next() % 3 == 0 ? 17 + rng.next() % 20 : rng.next() % 9)
            let value = (0..<length).map { _ in UInt8(rng.next() % 3) }
            terms.append(IndexTermEntry(index: UInt32(rng.next() % 2), value: TermBytes(value), key: RecordKey(key), sequence: rng.next() % 4))
        }
        for term in terms { try sorter.add(term) }
        #expect(sorter.runCount > 10)
        var got: [IndexTermEntry] = []
        try sorter.drain { got.append($0) }
        #expect(got == terms.sorted(by: IndexTermEntry.precedes))
        #expect(!fs.exists("/scratch/t.tmp"))
    }

    /// A bulk commit sorts each chunk's terms on the committing thread and hands them
    /// over sorted (`addSorted`): sorted pieces of every size — merged in the batch,
    /// spilled past the run limit, mixed with single adds — come out in the file's
    /// order, as one sort of all of them gives it.
    @Test func sortedPiecesMixedWithSingleTermsDrainInTheFilesOrder() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/scratch")
        var rng = SplitMix(seed: 23)
        func term(_ key: UInt64) -> IndexTermEntry {
            let length = Int(rng.next() % 4 == 0 ? 17 + rng.next() % 8 : rng.next() % 9)
            return IndexTermEntry(index: UInt32(rng.next() % 3), value: TermBytes((0..<length).map { _ in UInt8(rng.next() % 3) }),
                                  key: RecordKey(key), sequence: rng.next() % 3)
        }
        for runLimit in [2, 9, 40, 1_000] {
            var sorter = SpillSorter<IndexTermEntry>(path: "/scratch/p.tmp", fileSystem: fs, runLimit: runLimit,
                                                     encode: IndexFileEncoder.append, decode: IndexFileEncoder.readTerm)
            var all: [IndexTermEntry] = []
            var key: UInt64 = 1
            for _ in 0..<40 {
                let size = Int(rng.next() % 25)
                let piece = (0..<size).map { _ in defer { key += 1 }; return term(key) }
                all += piece
                if rng.next() % 3 == 0 {
                    for t in piece { try sorter.add(t) }
                } else {
                    try sorter.addSorted(piece.sorted(by: IndexTermEntry.precedes))
                }
            }
            #expect(sorter.count == all.count)
            var got: [IndexTermEntry] = []
            try sorter.drain { got.append($0) }
            #expect(got == all.sorted(by: IndexTermEntry.precedes), "run limit \(runLimit)")
            #expect(!fs.exists("/scratch/p.tmp"))
        }
    }

    /// Rising keys spill as one run, whose entry bytes are copied into the index file's
    /// blocks undecoded: the file must be the one a rebuild writes (verify compares
    /// them), with puts, tombstones and blob references, and a key repeated across
    /// two chunks still stops the commit.
    @Test func risingKeysAreCopiedFromTheirRunAsTheRebuildWritesThem() throws {
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(sortBatch: 5), fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        var chunk = 0
        var expected: [UInt64: [UInt8]] = [:]
        try store.commit { batch, writeBlob in
            chunk += 1
            for i in 0..<7 {
                let key = UInt64(chunk * 10 + i)
                if key % 6 == 0 {
                    batch.delete(RecordKey(key))
                    continue
                }
                let value = LogFixtures.value(key, version: 1, size: 20)
                batch.put(RecordKey(key), value: value, blobs: key % 4 == 0 ? [try writeBlob(value + value)] : [], terms: [IndexTerm(index: 1, value: [UInt8(key % 3)])])
                expected[key] = value
            }
            return chunk < 6
        }
        #expect(store.count == expected.count)
        for (key, value) in expected { #expect(try store.get(RecordKey(key))?.value == value) }
        #expect(try store.keys(for: IndexTerm(index: 1, value: [1])).sorted() == expected.keys.filter { $0 % 3 == 1 }.sorted().map { RecordKey($0) })
        #expect(try store.verify().isSound)
        #expect(try Self.scratchFiles(fs).isEmpty)

        chunk = 0
        let error = #expect(throws: StrataError.self) {
            try store.commit { batch, _ in
                chunk += 1
                // The last key of chunk 2 comes again first in chunk 3: still rising order, one run.
                for i in 0..<7 { batch.put(RecordKey(UInt64(1_000 + chunk * 6 + i)), value: [1]) }
                return chunk < 4
            }
        }
        #expect(error?.code == .invalidArgument)
        #expect(store.count == expected.count)
        #expect(try Self.scratchFiles(fs).isEmpty)
    }

    @Test func aKeyWrittenTwiceStopsTheCommitAndLeavesNothing() throws {
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        var small = WriteBatch()
        small.put(RecordKey(1), value: [1])
        try store.commit(small)
        var chunk = 0
        let error = #expect(throws: StrataError.self) {
            try store.commit { batch, _ in
                chunk += 1
                for key in 0..<20 { batch.put(RecordKey(UInt64(100 + key + chunk * 20 - (chunk == 3 ? 45 : 0))), value: [UInt8(chunk)]) }
                return chunk < 3
            }
        }
        #expect(error?.code == .invalidArgument)
        #expect(try store.keys() == [RecordKey(1)])
        #expect(try Self.scratchFiles(fs).isEmpty)
        // The store goes on, and a reopen finds only what was committed.
        var next = WriteBatch()
        next.put(RecordKey(2), value: [2])
        try store.commit(next)
        try store.close()
        let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        defer { try? reopened.close() }
        #expect(try reopened.keys() == [RecordKey(1), RecordKey(2)])
        #expect(try reopened.verify().isSound)
    }

    @Test func aProducerThatThrowsLeavesNothing() throws {
        struct Stop: Error {}
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        var chunk = 0
        #expect(throws: Stop.self) {
            try store.commit { batch, _ in
                chunk += 1
                if chunk == 4 { throw Stop() }
                for key in 0..<10 { batch.put(RecordKey(UInt64(chunk * 10 + key)), value: [UInt8(key)], terms: [IndexTerm(index: 1, value: [1])]) }
                return true
            }
        }
        #expect(store.count == 0)
        #expect(try store.keys(for: IndexTerm(index: 1, value: [1])).isEmpty)
        #expect(try Self.scratchFiles(fs).isEmpty)
        try store.close()
        let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        defer { try? reopened.close() }
        #expect(reopened.count == 0)
    }

    /// A chunk is written on a second thread while the next one is produced: a write
    /// that fails there stops the producer at the next chunk it hands over, not at the
    /// end of the transaction, and leaves nothing.
    @Test func aFailedChunkWriteStopsTheProducerAtTheNextChunk() throws {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        fs.inject(.fail(.write, errno: 28, matching: .contains("segments/"), on: .nth(1)))
        var chunk = 0
        let error = #expect(throws: StrataError.self) {
            try store.commit { batch, _ in
                chunk += 1
                for key in 0..<10 { batch.put(RecordKey(UInt64(chunk * 10 + key)), value: [UInt8(key)], terms: [IndexTerm(index: 1, value: [1])]) }
                return chunk < 50
            }
        }
        #expect(error?.code == .io)
        // The first chunk's write failed; the second was produced meanwhile, then refused.
        #expect(chunk == 2)
        #expect(store.count == 0)
        #expect(try Self.scratchFiles(memory).isEmpty)
        fs.clearFaults()
        try store.close()
        let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: memory, logger: .quiet)
        defer { try? reopened.close() }
        #expect(reopened.count == 0)
        #expect(try reopened.verify().isSound)
    }

    /// `commit(chunks:checking:)`: the check comes after the last chunk, while the
    /// index file is written, and one that throws leaves nothing, whatever the path
    /// the transaction took (several chunks, one chunk, chunks all empty).
    @Test(arguments: zip([3, 1, 3], [true, true, false]))
    func aCheckThatThrowsAfterTheLastChunkLeavesNothing(calls: Int, withKeys: Bool) throws {
        struct Duplicate: Error {}
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        var produced = 0
        var checkedAfter: Int?
        #expect(throws: Duplicate.self) {
            try store.commit(chunks: { batch, _ in
                produced += 1
                if withKeys {
                    for key in 0..<10 { batch.put(RecordKey(UInt64(produced * 10 + key)), value: [UInt8(key)], terms: [IndexTerm(index: 1, value: [1])]) }
                }
                return produced < calls
            }, checking: {
                checkedAfter = produced
                throw Duplicate()
            })
        }
        #expect(checkedAfter == calls)
        #expect(store.count == 0)
        #expect(store.lastSequence == 0)
        #expect(try store.keys(for: IndexTerm(index: 1, value: [1])).isEmpty)
        #expect(try Self.scratchFiles(fs).isEmpty)
        // The store goes on; a reopen finds only what was committed after.
        try store.commit { batch, _ in batch.put(RecordKey(1), value: [1]); return false }
        try store.close()
        let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        defer { try? reopened.close() }
        #expect(try reopened.keys() == [RecordKey(1)])
        #expect(try reopened.verify().isSound)
    }

    /// The index file written beside a check that passes: a failure to write it stops
    /// the commit as a failed chunk does; a check that passes commits the transaction.
    @Test func anIndexFileThatFailsBesideAPassingCheckLeavesNothing() throws {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        func commit() throws -> Int {
            var produced = 0, checks = 0
            try store.commit(chunks: { batch, _ in
                produced += 1
                for key in 0..<10 { batch.put(RecordKey(UInt64(produced * 10 + key)), value: [UInt8(key)], terms: [IndexTerm(index: 1, value: [1])]) }
                return produced < 4
            }, checking: { checks += 1 })
            return checks
        }
        fs.inject(.fail(.sync, errno: 5, matching: .contains(".idx.tmp"), on: .nth(1)))
        let error = #expect(throws: StrataError.self) { _ = try commit() }
        #expect(error?.code == .io)
        #expect(store.count == 0)
        #expect(try Self.scratchFiles(memory).isEmpty)
        fs.clearFaults()
        #expect(try commit() == 1)
        #expect(store.count == 40)
        #expect(try store.keys(for: IndexTerm(index: 1, value: [1])).count == 40)
        #expect(try store.verify().isSound)
        try store.close()
    }

    /// A chunk's terms are packed on whichever thread has time: a producer slower than
    /// the writing thread leaves the packing to it, a fast one packs them itself. The
    /// index holds every term either way, across sorter spills on both threads.
    @Test func termsPackedOnEitherThreadAllReachTheIndex() throws {
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(sortBatch: 64), fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        var produced = 0
        try store.commit { batch, _ in
            produced += 1
            // Every third chunk comes slowly, after the writing thread has gone idle.
            if produced % 3 == 0 { usleep(2_000) }
            for key in 0..<50 {
                let k = UInt64(produced * 50 + key)
                batch.put(RecordKey(k), value: [UInt8(key)],
                          terms: [IndexTerm(index: 1, value: [UInt8(k % 7)]), IndexTerm(index: 2, value: Array("t\(k)".utf8))])
            }
            return produced < 30
        }
        #expect(store.count == 1_500)
        for residue in UInt64(0)..<7 {
            let want = (50..<1_550).map(UInt64.init).filter { $0 % 7 == residue }.map { RecordKey($0) }
            #expect(try store.keys(for: IndexTerm(index: 1, value: [UInt8(residue)])).sorted() == want)
        }
        for k in stride(from: UInt64(50), to: 1_550, by: 37) {
            #expect(try store.keys(for: IndexTerm(index: 2, value: Array("t\(k)".utf8))) == [RecordKey(k)])
        }
        #expect(try store.verify().isSound)
    }

    /// The hand-over itself: a chunk that arrives while the writing thread is idle is
    /// packed there, one that arrives while it still writes the chunk before is packed
    /// by the committing thread, and the sorter gets every term once either way.
    @Test func eachChunksTermsArePackedByTheThreadThatIsIdle() throws {
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        let file = try fs.open(Self.root + "/index/bulk-test.seg", mode: .create)
        let entries = SpillSorter<IndexEntry>(path: Self.root + "/index/e.tmp", fileSystem: fs, runLimit: 64,
                                              encode: IndexFileEncoder.append, decode: { try IndexFileEncoder.readEntry(&$0, segment: 90) })
        let terms = PackedTermSorter(path: Self.root + "/index/t.tmp", fileSystem: fs, budget: 1 << 20, runLimit: 64)
        let writer = BulkChunkWriter(store: store, file: file, segmentID: 90, sequence: 1, start: Int64(Format.segmentHeaderSize),
                                     live: IndexCounters(), entries: entries, terms: terms)
        // Made beforehand, so that a chunk handed over right after another finds the
        // writing thread still at work on it.
        let chunks: [[Record]] = (0..<20).map { n in
            (0..<200).map { i in
                let key = UInt64(n * 200 + i)
                return Record(key: RecordKey(key), sequence: 1, value: LogFixtures.value(key, version: 1, size: 60),
                              terms: [IndexTerm(index: 1, value: [UInt8(key % 7)]), IndexTerm(index: 2, value: Array("t\(key)".utf8))])
            }
        }
        for (n, chunk) in chunks.enumerated() {
            // Every other chunk comes after the writing thread has gone idle.
            if n % 2 == 0 { try writer.wait() }
            try writer.submit(chunk)
        }
        try writer.wait()
        #expect(writer.chunksPackedByWriter >= 10)
        #expect(writer.chunksPackedByWriter < 20)
        var got: [IndexTermEntry] = []
        try writer.terms.drain { got.append(IndexTermEntry(index: $0.index, value: TermBytes($0.value), key: $0.key, sequence: $0.sequence)) }
        let want = chunks.joined().flatMap { r in r.terms.map { IndexTermEntry(index: $0.index, value: TermBytes($0.value), key: r.key, sequence: 1) } }
        #expect(got == want.sorted(by: IndexTermEntry.precedes))
        writer.entries.discard()
    }

    @Test func chunksThatAreAllEmptyWriteNoTransaction() throws {
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        var calls = 0
        let sequence = try store.commit { _, _ in calls += 1; return calls < 3 }
        #expect(sequence == 0)
        #expect(store.lastSequence == 0)
        #expect(try Self.scratchFiles(fs).isEmpty)
        try store.commit { batch, _ in batch.put(RecordKey(1), value: [1]); return false }
        #expect(store.lastSequence == 1)
    }

    @Test func oneChunkIsAnOrdinaryCommit() throws {
        let fs = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        try store.commit { batch, _ in batch.put(RecordKey(1), value: [1]); return false }
        try store.commit { batch, _ in batch.put(RecordKey(2), value: [2]); return false }
        // Both in the active segment, no seal: a bulk commit would have sealed twice.
        #expect(try fs.contentsOfDirectory(Self.root + "/segments").count == 1)
        #expect(try store.keys() == [RecordKey(1), RecordKey(2)])
    }

    @Test(arguments: [Fault.Operation.write, .sync, .rename, .syncDirectory, .create, .truncate, .remove])
    func failingEachOccurrenceKeepsAcknowledgedTransactions(operation: Fault.Operation) throws {
        let counting = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        let clean = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: counting, logger: .quiet)
        counting.resetCounts()
        #expect(!Self.run(clean, transactions: 8).failed)
        try clean.close()
        let total = counting.counts[operation] ?? 0
        // Every fourth occurrence keeps the sweep short; the bulk steps are all reached.
        for occurrence in stride(from: 1, through: total, by: total > 120 ? 3 : 1) {
            let memory = InMemoryFileSystem()
            let fs = FaultInjectingFileSystem(wrapping: memory)
            let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
            fs.resetCounts()
            let id = fs.inject(.fail(operation, errno: 5, on: .nth(occurrence)))
            let run = Self.run(store, transactions: 8)
            let context = "\(operation) #\(occurrence)"
            #expect(run.failed || fs.timesFired(id) == 0 || [.truncate, .syncDirectory, .remove].contains(operation), "\(context): the failure was swallowed")
            fs.clearFaults()
            try? store.close()
            memory.crash()
            let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: memory, logger: .quiet)
            let found = try Self.contents(reopened)
            #expect([run.acknowledged, run.acknowledged + 1].contains { found == Self.model(after: $0) }, "\(context): not the state after \(run.acknowledged) or the next")
            #expect(try reopened.verify().isSound, "\(context)")
            #expect(try Self.scratchFiles(memory).isEmpty, "\(context): scratch files left after open")
            try reopened.close()
        }
    }

    static func contents(_ store: LogStore) throws -> [UInt64: [UInt8]] {
        var result: [UInt64: [UInt8]] = [:]
        for key in try store.keys() { result[key.rawValue] = try store.get(key)?.value }
        return result
    }
}
