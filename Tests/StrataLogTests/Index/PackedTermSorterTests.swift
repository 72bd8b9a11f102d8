import Testing
import StrataTestSupport
@testable import StrataLog

/// Terms sorted as packed byte runs (`PackedTerms`, `PackedTermSorter`): the order is
/// the index file's (`IndexTermEntry.precedes`) whatever the values' lengths — the
/// 8-byte words the sort compares, values of exactly 16 and 17 bytes (the largest a
/// `TermBytes` holds inline and the smallest it does not), long values sharing long
/// prefixes, equal values — in memory and across runs spilled beyond the budget.
@Suite("Index: packed term sort")
struct PackedTermSorterTests {
    /// Values that tie on whole words, differ in their last byte, are prefixes of
    /// each other, contain zeros (which the words' padding also holds), and are of
    /// every length around 8, 16 and 17.
    static func terms(_ count: Int, seed: UInt64) -> [IndexTermEntry] {
        var rng = SplitMix(seed: seed)
        let stems: [[UInt8]] = [[], [0], [0, 0], Array("employee".utf8), Array("john.smith.".utf8),
                                Array(repeating: 0x61, count: 16), Array(repeating: 0x61, count: 17), Array(repeating: 0, count: 9)]
        return (0..<count).map { i in
            var value = stems[Int(rng.next() % UInt64(stems.count))]
            let tail = Int(rng.next() % 20)
            for _ in 0..<tail { value.append(UInt8(rng.next() % 3)) }
            if rng.next() % 4 == 0 { value = Array(value.prefix(Int(rng.next() % 18))) }
            return IndexTermEntry(index: UInt32(rng.next() % 3), value: TermBytes(value),
                                  key: RecordKey(rng.next() % 64), sequence: rng.next() % 4 + UInt64(i % 2))
        }
    }

    static func drained(_ sorter: inout PackedTermSorter) throws -> [IndexTermEntry] {
        var out: [IndexTermEntry] = []
        try sorter.drain { t in out.append(IndexTermEntry(index: t.index, value: TermBytes(t.value), key: t.key, sequence: t.sequence)) }
        return out
    }

    static func add(_ terms: [IndexTermEntry], to sorter: inout PackedTermSorter) throws {
        for t in terms { try sorter.add(index: t.index, value: t.value.bytes, key: t.key, sequence: t.sequence) }
    }

    @Test(arguments: [1, 2, 500, 5000])
    func inMemoryTheOrderIsTheIndexFilesOrder(count: Int) throws {
        let fs = InMemoryFileSystem()
        let terms = Self.terms(count, seed: UInt64(count))
        var sorter = PackedTermSorter(path: "/p.tmp", fileSystem: fs, budget: 1 << 30)
        try Self.add(terms, to: &sorter)
        #expect(sorter.count == count)
        let got = try Self.drained(&sorter)
        #expect(sorter.runCount == 0)
        #expect(!fs.exists("/p.tmp"), "nothing spilled, no file")
        #expect(got == terms.sorted(by: IndexTermEntry.precedes))
    }

    /// Beyond the budget the terms go to sorted runs in a scratch file, merged in
    /// order with what is still in memory; the file is removed after the drain.
    @Test(arguments: [4096, 20_000])
    func runsSpilledBeyondTheBudgetMergeInOrder(budget: Int) throws {
        let fs = InMemoryFileSystem()
        let terms = Self.terms(6000, seed: 7)
        var sorter = PackedTermSorter(path: "/scratch.tmp", fileSystem: fs, budget: budget)
        try Self.add(terms, to: &sorter)
        #expect(sorter.runCount > 3, "\(sorter.runCount) runs")
        #expect(fs.exists("/scratch.tmp"))
        let got = try Self.drained(&sorter)
        #expect(got == terms.sorted(by: IndexTermEntry.precedes))
        #expect(!fs.exists("/scratch.tmp"))
    }

    /// More runs than a merge reads at once are merged ahead, up to a group at a
    /// time, no more than it takes: the order is the same, no merge reads more than
    /// the fan-in, and the scratch file is removed.
    @Test(arguments: [(2, 58), (4, 36), (16, 16), (64, 0)])
    func runsBeyondTheFanInAreMergedAheadInOrder(fanIn: Int, mergedAhead: Int) throws {
        let fs = InMemoryFileSystem()
        let terms = Self.terms(1_500, seed: 11)
        var sorter = PackedTermSorter(path: "/m.tmp", fileSystem: fs, budget: 1 << 30, runLimit: 50, fanIn: fanIn)
        try Self.add(terms, to: &sorter)
        #expect(sorter.runCount == 30)
        let got = try Self.drained(&sorter)
        #expect(got == terms.sorted(by: IndexTermEntry.precedes))
        #expect(sorter.widestMerge <= fanIn)
        // The last merge reads the terms in memory too, so it takes fanIn − 1 runs;
        // each merge ahead takes a group, or as few as bring the count down to that.
        // Fan-in 2: 29 merges of 2; fan-in 4: 30 → 27 → … → 3, 9 merges of 4;
        // fan-in 16: one merge of the 16 that leave 15.
        #expect(sorter.runsMergedAhead == mergedAhead)
        #expect(!fs.exists("/m.tmp"))
    }

    /// Setting a sort aside writes what it holds in memory as one more run once it has
    /// spilled, and keeps a sort that never spilled in memory; the drain is the same.
    @Test func aSortSetAsideSpillsItsLastTermsOnlyWhenItSpillsAnyway() throws {
        let fs = InMemoryFileSystem()
        let terms = Self.terms(1_000, seed: 23)
        var spilling = PackedTermSorter(path: "/a.tmp", fileSystem: fs, budget: 1 << 30, runLimit: 300)
        try Self.add(terms, to: &spilling)
        #expect(spilling.runCount == 3)
        try spilling.setAside()
        #expect(spilling.runCount == 4)
        #expect(try Self.drained(&spilling) == terms.sorted(by: IndexTermEntry.precedes))
        var small = PackedTermSorter(path: "/b.tmp", fileSystem: fs, budget: 1 << 30)
        try Self.add(terms, to: &small)
        try small.setAside()
        #expect(small.runCount == 0)
        #expect(!fs.exists("/b.tmp"))
        #expect(try Self.drained(&small) == terms.sorted(by: IndexTermEntry.precedes))
    }

    /// A run limit spills by count whatever the bytes (a chunked commit's
    /// `bulkSortBatch`), and terms of the longest value (65,535 bytes) pass through a
    /// run's read buffer.
    @Test func aRunLimitSpillsByCountAndLongValuesSurviveARun() throws {
        let fs = InMemoryFileSystem()
        var terms = Self.terms(40, seed: 3)
        terms.append(IndexTermEntry(index: 1, value: TermBytes([UInt8](repeating: 7, count: 65_535)), key: RecordKey(5), sequence: 1))
        terms.append(IndexTermEntry(index: 1, value: TermBytes([UInt8](repeating: 7, count: 65_534) + [8]), key: RecordKey(4), sequence: 1))
        var sorter = PackedTermSorter(path: "/r.tmp", fileSystem: fs, budget: 1 << 30, runLimit: 3)
        try Self.add(terms, to: &sorter)
        #expect(sorter.runCount == 14)
        #expect(try Self.drained(&sorter) == terms.sorted(by: IndexTermEntry.precedes))
    }

    /// Equal values, long and short, are ordered by key, then by sequence; values of
    /// 16 and 17 bytes that share their first 16 sort the shorter first.
    @Test func equalValuesAreOrderedByKeyThenSequence() throws {
        let long = [UInt8](repeating: 0x7A, count: 40)
        let sixteen = [UInt8](repeating: 0x41, count: 16), seventeen = sixteen + [0]
        var terms: [IndexTermEntry] = []
        for (key, sequence) in [(9, 2), (3, 5), (9, 1), (1, 1), (3, 4)] as [(UInt64, UInt64)] {
            for value in [long, sixteen, seventeen, [1, 2]] {
                terms.append(IndexTermEntry(index: 4, value: TermBytes(value), key: RecordKey(key), sequence: sequence))
            }
        }
        var sorter = PackedTermSorter(path: "/e.tmp", fileSystem: InMemoryFileSystem(), budget: 1 << 20)
        try Self.add(terms.reversed(), to: &sorter)
        let got = try Self.drained(&sorter)
        #expect(got == terms.sorted(by: IndexTermEntry.precedes))
        #expect(got.prefix(5).map(\.value) == Array(repeating: TermBytes([1, 2]), count: 5))
        #expect(got[5...9].allSatisfy { $0.value == TermBytes(sixteen) } && got[10...14].allSatisfy { $0.value == TermBytes(seventeen) })
        #expect(got.prefix(5).map { [$0.key.rawValue, $0.sequence] } == [[1, 1], [3, 4], [3, 5], [9, 1], [9, 2]])
    }

    /// A sort that pauses (compaction gives up its core there) puts the terms in the
    /// same order, and pauses once per `slotsBetweenPauses` slots handled: never for a
    /// handful of terms, tens of times (not once per partition) for tens of thousands.
    @Test func aSortThatPausesGivesTheSameOrder() throws {
        for count in [10, 40_000] {
            let terms = Self.terms(count, seed: 3)
            var plain = PackedTerms(), paused = PackedTerms()
            for t in terms {
                plain.append(index: t.index, value: t.value.bytes, key: t.key, sequence: t.sequence)
                paused.append(index: t.index, value: t.value.bytes, key: t.key, sequence: t.sequence)
            }
            plain.sort()
            var pauses = 0
            paused.sort(pause: { pauses += 1 })
            func entries(_ packed: PackedTerms) -> [IndexTermEntry] {
                packed.withTermsInOrder { term in
                    (0..<packed.count).map { let t = term($0); return IndexTermEntry(index: t.index, value: TermBytes(Array(t.value)), key: t.key, sequence: t.sequence) }
                }
            }
            #expect(entries(paused) == terms.sorted(by: IndexTermEntry.precedes))
            #expect(entries(paused) == entries(plain))
            if count < PackedTerms.slotsBetweenPauses {
                #expect(pauses == 0)
            } else {
                // A quicksort handles each slot about log2(count) times, plus the scans for ties.
                let most = count * (Int.bitWidth - count.leadingZeroBitCount + 2) / PackedTerms.slotsBetweenPauses
                #expect(pauses >= count / PackedTerms.slotsBetweenPauses && pauses <= most, "\(pauses) pauses")
            }
        }
    }

    /// An index file whose terms come packed holds the bytes of one whose terms come
    /// as entries (`verify` compares a file with its rebuild).
    @Test func anIndexFileFromPackedTermsIsTheSameFile() throws {
        let terms = Self.terms(3000, seed: 11).sorted(by: IndexTermEntry.precedes)
        let entries = (1...50).map { IndexEntry(key: RecordKey(UInt64($0)), sequence: 1, isTombstone: false,
                                                 location: RecordLocation(segment: 1, frameOffset: 0, frameLength: 0, recordOffset: 0, recordLength: 0), blobs: []) }
        let expected = try IndexFileBuilder.encode(entries: entries, terms: terms, segmentID: 1, storeID: [UInt8](repeating: 1, count: 16),
                                                   minSequence: 1, maxSequence: 4, recordBytes: 0, segmentLength: 64)
        var sorter = PackedTermSorter(path: "/f.tmp", fileSystem: InMemoryFileSystem(), budget: 8192)
        try Self.add(terms.shuffled(), to: &sorter)
        var encoder = IndexFileEncoder(expectedEntries: entries.count)
        for e in entries { try encoder.add(e) }
        try sorter.drain { try encoder.add($0) }
        let got = try encoder.finish(segmentID: 1, storeID: [UInt8](repeating: 1, count: 16), minSequence: 1, maxSequence: 4,
                                     recordBytes: 0, segmentLength: 64)
        #expect(got == expected)
    }
}
