import Testing
@testable import StrataLog

/// The overlay's sorted contents (what a roll writes as the segment's index file):
/// entries by key and only the current versions' terms, whether keys arrived in order
/// (a bulk load, which skips the sort and the per-term lookups) or not.
@Suite struct IndexOverlayTests {
    static func entry(_ key: UInt64, _ sequence: UInt64, tombstone: Bool = false) -> IndexEntry {
        IndexEntry(key: RecordKey(key), sequence: sequence, isTombstone: tombstone,
                   location: RecordLocation(segment: 1, frameOffset: 0, frameLength: 64, recordOffset: UInt32(key), recordLength: 8), blobs: [])
    }

    static func term(_ value: UInt8) -> [IndexTerm] { [IndexTerm(index: 3, value: [value])] }

    /// What `sortedContents` must answer, computed plainly.
    static func expected(_ adds: [(IndexEntry, [IndexTerm])]) -> (keys: [UInt64], terms: [[UInt64]]) {
        // Only the last version added of each key keeps its terms, and not a tombstone.
        var newest: [UInt64: IndexEntry] = [:], lastAdd: [UInt64: Int] = [:]
        for (i, (entry, _)) in adds.enumerated() {
            newest[entry.key.rawValue] = entry
            lastAdd[entry.key.rawValue] = i
        }
        var terms: [(value: UInt8, key: UInt64, sequence: UInt64)] = []
        for (i, (entry, list)) in adds.enumerated() {
            guard lastAdd[entry.key.rawValue] == i, !entry.isTombstone else { continue }
            for t in list { terms.append((t.value[0], entry.key.rawValue, entry.sequence)) }
        }
        terms.sort { ($0.value, $0.key, $0.sequence) < ($1.value, $1.key, $1.sequence) }
        return (newest.keys.sorted(), terms.map { [UInt64($0.value), $0.key, $0.sequence] })
    }

    static func check(_ adds: [(IndexEntry, [IndexTerm])], normalizeAfter: Int? = nil) {
        var overlay = IndexOverlay()
        for (i, (entry, terms)) in adds.enumerated() {
            overlay.add(entry, terms: terms)
            if i == normalizeAfter {
                overlay.normalizeKeys()
                overlay.normalizeTerms()
            }
        }
        let (entries, terms) = overlay.sortedContents()
        let want = expected(adds)
        #expect(entries.map(\.key.rawValue) == want.keys)
        for e in entries { #expect(overlay.entry(e.key) == e) }
        var got: [[UInt64]] = []
        terms.forEach { got.append([UInt64($0.value[0]), $0.key.rawValue, $0.sequence]) }
        #expect(got == want.terms)
    }

    /// A roll packs the terms to sort them: values of 16 and 17 bytes, long ones
    /// sharing their first words, and equal ones come out in the index file's order.
    @Test func longValuesAreSortedAsPackedRuns() {
        var overlay = IndexOverlay()
        var added: [IndexTermEntry] = []
        let prefix = [UInt8](repeating: 0x65, count: 16)
        for key in UInt64(1)...300 {
            let value: [UInt8] = switch key % 4 {
            case 0: prefix
            case 1: prefix + [UInt8(key % 3)]
            case 2: prefix + Array("\(key % 11).long.tail".utf8)
            default: Array("\(key % 13)".utf8)
            }
            let terms = [IndexTerm(index: 2, value: value), IndexTerm(index: 1, value: [UInt8(key % 5)])]
            overlay.add(Self.entry(301 - key, 1), terms: terms)
            added += terms.map { IndexTermEntry(index: $0.index, value: TermBytes($0.value), key: RecordKey(301 - key), sequence: 1) }
        }
        var got: [IndexTermEntry] = []
        overlay.sortedContents().terms.forEach { got.append(IndexTermEntry(index: $0.index, value: TermBytes($0.value), key: $0.key, sequence: $0.sequence)) }
        #expect(got == added.sorted(by: IndexTermEntry.precedes))
    }

    @Test func keysInOrderStaySortedWithEveryTerm() {
        Self.check((1...200).map { (Self.entry($0, 1), Self.term(UInt8($0 % 7))) })
    }

    @Test func keysOutOfOrderAreSorted() {
        Self.check([500, 3, 90, 4, 1000, 2].map { (Self.entry($0, 1), Self.term(UInt8($0 % 5))) })
    }

    @Test func aSmallerKeyAfterNormalizingIsSortedToo() {
        // normalizeKeys() sorts the key list; the entries stay in arrival order.
        let adds = [10, 20, 30, 5, 40].map { (Self.entry(UInt64($0), 1), Self.term(1)) }
        Self.check(adds, normalizeAfter: 2)
        Self.check([30, 10, 20, 40, 50].map { (Self.entry(UInt64($0), 1), Self.term(1)) }, normalizeAfter: 2)
    }

    @Test func aKeyWrittenAgainKeepsOnlyItsCurrentTerms() {
        Self.check([(Self.entry(1, 1), Self.term(9)), (Self.entry(2, 1), Self.term(8)), (Self.entry(1, 2), Self.term(7))])
        // Deleted since: its terms go.
        Self.check([(Self.entry(1, 1), Self.term(9)), (Self.entry(2, 1), Self.term(8)), (Self.entry(1, 2, tombstone: true), [])])
        // Written twice in one transaction (same sequence): the later version's terms.
        Self.check([(Self.entry(1, 1), Self.term(9)), (Self.entry(1, 1), Self.term(4)), (Self.entry(2, 1), Self.term(8))])
    }

    @Test func aTombstoneWithTermsKeepsNone() {
        Self.check([(Self.entry(1, 1, tombstone: true), Self.term(3)), (Self.entry(2, 1), Self.term(8))])
    }
}
