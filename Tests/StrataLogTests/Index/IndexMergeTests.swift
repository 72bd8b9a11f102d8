import Testing
import StrataTestSupport
@testable import StrataLog

/// The index's range merge hands over slots (entries without their blob lists, which
/// stay in the block they were decoded from): every key's newest version must still
/// come with its own blob references, whichever file or the overlay holds it, over
/// block edges, from one file (the merge's fast path) or several. Model-checked against
/// a dictionary of the newest versions.
@Suite struct IndexMergeTests {
    static let storeID = [UInt8](repeating: 9, count: 16)

    static func file(_ entries: [IndexEntry], segment: UInt32) throws -> IndexFile {
        let sequences = entries.map(\.sequence)
        let bytes = try IndexFileBuilder.encode(entries: entries, terms: [], segmentID: segment, storeID: storeID,
                                            minSequence: sequences.min() ?? 0, maxSequence: sequences.max() ?? 0,
                                            recordBytes: Int64(30 * entries.count), segmentLength: 1 << 20)
        return try IndexFile(file: ByteArrayFile(path: "\(segment).idx", bytes: bytes), segmentID: segment, storeID: storeID,
                             cache: BlockCache(budget: 1 << 20))
    }

    static func entry(_ key: UInt64, sequence: UInt64, segment: UInt32, _ random: inout SplitMix) -> IndexEntry {
        // About a third carry one to three blob references, each naming its key and sequence.
        let blobs = random.next() % 3 == 0
            ? (0..<(1 + random.next() % 3)).map { i in BlobRef(file: UInt32(sequence), offset: key, length: i + 1, checksum: UInt32(segment)) }
            : []
        return IndexEntry(key: RecordKey(key), sequence: sequence, isTombstone: random.next() % 9 == 0,
                          location: RecordLocation(segment: segment, frameOffset: 48, frameLength: 100, recordOffset: UInt32(key % 50), recordLength: 30),
                          blobs: blobs)
    }

    @Test(arguments: [1, 3])
    func mergedVersionsCarryTheirBlobs(files fileCount: Int) throws {
        var random = SplitMix(seed: UInt64(40 + fileCount))
        for round in 0..<12 {
            var index = StoreIndex()
            var newest: [UInt64: IndexEntry] = [:]
            var sequence: UInt64 = 0
            for segment in 1...UInt32(fileCount) {
                // Each file a later transaction over some keys: several blocks' worth.
                var keys = Set<UInt64>()
                for _ in 0..<(200 + random.next() % 500) { keys.insert(1 + random.next() % 900) }
                sequence += 1
                let entries = keys.sorted().map { Self.entry($0, sequence: sequence, segment: segment, &random) }
                index.install(try Self.file(entries, segment: segment))
                for e in entries { newest[e.key.rawValue] = e }
            }
            if fileCount > 1 {
                // The active segment's newer versions of a few keys.
                sequence += 1
                for _ in 0..<40 {
                    let e = Self.entry(1 + random.next() % 900, sequence: sequence, segment: 99, &random)
                    index.apply(e, terms: [], replacing: nil)
                    newest[e.key.rawValue] = e
                }
            }
            let from = RecordKey(random.next() % 300), to = RecordKey(600 + random.next() % 400)
            var merged: [IndexEntry] = []
            try index.merge(from: from, to: to) { merged.append($0); return true }
            let expected = newest.keys.sorted().filter { $0 >= from.rawValue && $0 < to.rawValue }.compactMap { newest[$0] }
            #expect(merged == expected, "round \(round): \(merged.count) merged, \(expected.count) expected")
            // A walk that stops early stops where it was told.
            var firstTen: [IndexEntry] = []
            try index.merge(from: from, to: to) { firstTen.append($0); return firstTen.count < 10 }
            #expect(firstTen == Array(expected.prefix(10)), "round \(round)")
        }
    }
}
