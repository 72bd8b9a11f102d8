import Testing
import StrataTestSupport
@testable import StrataLog

/// `TermOrder.sorted` against a plain sort by `IndexTermEntry.precedes`, on terms as
/// commits bring them (key order, one record's terms of several indexes side by side,
/// values that repeat, rise with the key or are anything) and on terms in no order.
@Suite struct TermOrderTests {
    static func value(_ r: inout SeededRandom, shape: Int, key: UInt64) -> [UInt8] {
        switch shape {
        case 0: return withUnsafeBytes(of: UInt64(r.int(in: 1...12)).bigEndian, Array.init)       // a department
        case 1: return withUnsafeBytes(of: (key &* 3).bigEndian, Array.init)                      // rises with the key
        case 2: return (0..<r.int(in: 0...40)).map { _ in UInt8(r.int(in: 0...3)) }               // short and long, prefixes
        default: return withUnsafeBytes(of: UInt64(r.int(in: 0...999_999)).bigEndian, Array.init) // anything
        }
    }

    @Test func givesWhatAFullSortGives() {
        var r = SeededRandom(seed: 0x7E57)
        for round in 0..<300 {
            let indexCount = r.int(in: 1...4)
            let shapes = (0..<indexCount).map { _ in r.int(in: 0...3) }
            var terms: [IndexTermEntry] = []
            var key: UInt64 = UInt64(r.int(in: 1...100))
            for sequence in 1...UInt64(r.int(in: 1...6)) {
                for _ in 0..<r.int(in: 0...80) {
                    key += UInt64(r.int(in: 1...3))
                    for index in 0..<indexCount where r.chance(85) {
                        let value = Self.value(&r, shape: shapes[index], key: key)
                        terms.append(IndexTermEntry(index: UInt32(index * 7 + 1), value: TermBytes(value), key: RecordKey(key), sequence: sequence))
                        // Now and then the same record carries two terms of one index.
                        if r.chance(3) {
                            terms.append(IndexTermEntry(index: UInt32(index * 7 + 1), value: TermBytes(Self.value(&r, shape: shapes[index], key: key)),
                                                        key: RecordKey(key), sequence: sequence))
                        }
                    }
                }
                // Later commits may rewrite earlier keys: key order breaks.
                if r.chance(30) { key = UInt64(r.int(in: 1...100)) }
            }
            if r.chance(15) { terms.shuffle(using: &r) }
            #expect(TermOrder.sorted(terms) == terms.sorted(by: IndexTermEntry.precedes), "round \(round)")
        }
    }

    @Test func manyDistinctValuesAndIndexesFallBackToTheFullSort() {
        var r = SeededRandom(seed: 9)
        // More distinct values than are grouped, in key order.
        let many = (1...2_000).map { i in IndexTermEntry(index: 3, value: TermBytes(withUnsafeBytes(of: UInt64(r.int(in: 0...1_000_000)).bigEndian, Array.init)),
                                                           key: RecordKey(UInt64(i)), sequence: 1) }
        #expect(TermOrder.sorted(many) == many.sorted(by: IndexTermEntry.precedes))
        // More indexes than are split.
        let indexes = (1...600).map { i in IndexTermEntry(index: UInt32(600 - i), value: TermBytes([1]), key: RecordKey(UInt64(i)), sequence: 1) }
        #expect(TermOrder.sorted(indexes) == indexes.sorted(by: IndexTermEntry.precedes))
    }
}
