import Testing
import StrataTestSupport
@testable import StrataLog

/// The builder keeps the newest version of each key, whatever order the versions come
/// in — ascending keys (a compaction's copies, which take no lookup table), a key
/// repeated at once, keys that go back (a segment rebuilt from commits in log order),
/// an older version after a newer one — and each kept version's terms only. Checked
/// against a dictionary of the newest versions.
@Suite struct IndexFileBuilderTests {
    static let storeID = [UInt8](repeating: 5, count: 16)

    static func entry(_ key: UInt64, _ sequence: UInt64) -> IndexEntry {
        IndexEntry(key: RecordKey(key), sequence: sequence, isTombstone: key % 11 == 0 && sequence % 2 == 0,
                   location: RecordLocation(segment: 1, frameOffset: 48, frameLength: 100, recordOffset: UInt32(key % 40), recordLength: 30),
                   blobs: [])
    }

    /// A term per version: its value names key and sequence, so a stale one shows.
    static func terms(_ key: UInt64, _ sequence: UInt64) -> [IndexTerm] {
        [IndexTerm(index: 7, value: Array("k\(key % 5)-\(key)-\(sequence)".utf8)), IndexTerm(index: 3, value: [UInt8(key % 3)])]
    }

    @Test(arguments: ["ascending", "repeats", "goes back", "random"])
    func theNewestVersionOfEachKeyAndItsTermsAreKept(order: String) throws {
        var random = SplitMix(seed: UInt64(order.utf8.count))
        var versions: [(UInt64, UInt64)] = []
        switch order {
        case "ascending": versions = (1...3000).map { (UInt64($0), 1) }
        case "repeats": versions = (1...3000).flatMap { key -> [(UInt64, UInt64)] in [(UInt64(key), 1), (UInt64(key), 2)] }
        case "goes back": versions = (1...2000).map { (UInt64($0), 1) } + (500...2500).map { (UInt64($0), 2) } + [(7, 0)]
        default: versions = (0..<4000).map { _ in (1 + random.next() % 1500, 1 + random.next() % 4) }
        }
        var builder = IndexFileBuilder()
        var newest: [UInt64: UInt64] = [:]
        for (key, sequence) in versions {
            builder.add(Self.entry(key, sequence), terms: Self.terms(key, sequence))
            newest[key] = max(newest[key] ?? 0, sequence)
        }
        let bytes = try builder.encoded(segmentID: 1, storeID: Self.storeID, minSequence: 0, maxSequence: 4, recordBytes: 1, segmentLength: 1 << 20)
        let file = try IndexFile(file: ByteArrayFile(path: "1.idx", bytes: bytes), segmentID: 1, storeID: Self.storeID, cache: BlockCache(budget: 1 << 20))
        var seen: [UInt64] = []
        try file.forEachEntry { e in
            #expect(e.sequence == newest[e.key.rawValue], "key \(e.key.rawValue)")
            seen.append(e.key.rawValue)
        }
        #expect(seen == newest.keys.sorted())
        // The terms of live newest versions, none of a replaced one, in file order.
        var expected: [(UInt32, [UInt8], UInt64)] = []
        for (key, sequence) in newest where !Self.entry(key, sequence).isTombstone {
            for t in Self.terms(key, sequence) { expected.append((t.index, t.value, key)) }
        }
        expected.sort { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.1 != b.1 { return a.1.lexicographicallyPrecedes(b.1) }
            return a.2 < b.2
        }
        var found: [(UInt32, [UInt8], UInt64)] = []
        for index: UInt32 in [3, 7] {
            try file.terms(index: index, from: nil, through: nil, lowerInclusive: true, upperInclusive: true) { t in
                found.append((t.index, t.value.bytes, t.key.rawValue))
            }
        }
        #expect(found.count == expected.count)
        #expect(zip(found, expected).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 })
    }
}
