import Testing
@testable import StrataLog

/// The compact term index answers exactly what a map of byte arrays to key sets would:
/// bytewise order across the inline/heap boundary, prefixes before their extensions,
/// keys moving between one and many.
@Suite struct TermIndexTests {
    /// Values around the 16-byte inline limit, prefixes of each other, zero bytes.
    static let values: [[UInt8]] = [
        [], [0], [0, 0], [1], [0xFF], [0x7F, 0xFF],
        Array(repeating: 0, count: 8), Array(repeating: 0, count: 9),
        Array(repeating: 0xAB, count: 15), Array(repeating: 0xAB, count: 16), Array(repeating: 0xAB, count: 17),
        Array(repeating: 0xAB, count: 16) + [0], Array(repeating: 0xAB, count: 16) + [0xFF],
        Array("alpha".utf8), Array("alphabet soup, long enough".utf8), Array("beta".utf8),
    ]

    @Test func bytesRoundTripAndOrderAsByteArraysDo() {
        for a in Self.values {
            #expect(TermBytes(a).bytes == a)
            for b in Self.values {
                #expect((TermBytes(a) < TermBytes(b)) == a.lexicographicallyPrecedes(b), "\(a) < \(b)")
                #expect((TermBytes(a) == TermBytes(b)) == (a == b), "\(a) == \(b)")
                if a == b { #expect(TermBytes(a).hashValue == TermBytes(b).hashValue) }
            }
        }
    }

    @Test func lookupsAndRangesMatchAPlainMap() {
        var index = TermIndex()
        var plain: [[UInt8]: Set<RecordKey>] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<2_000 {
            let value = Self.values[Int.random(in: 0..<Self.values.count, using: &generator)]
            let key = RecordKey(UInt64.random(in: 1...40, using: &generator))
            if step % 3 == 2 {
                index.remove(index: 7, value: TermBytes(value), key: key)
                plain[value]?.remove(key)
                if plain[value]?.isEmpty == true { plain[value] = nil }
            } else {
                index.insert(index: 7, value: TermBytes(value), key: key)
                plain[value, default: []].insert(key)
            }
            if step % 100 == 0 {
                for value in Self.values {
                    #expect(Set(index.keys(for: IndexTerm(index: 7, value: value))) == (plain[value] ?? []))
                    #expect(index.keys(for: IndexTerm(index: 8, value: value)).isEmpty)
                }
                for lower in Self.values.shuffled().prefix(4) {
                    for upper in Self.values.shuffled().prefix(4) {
                        for (lowerInclusive, upperInclusive) in [(true, true), (false, false), (true, false)] {
                            let expected = plain.filter { value, _ in
                                (lowerInclusive ? !value.lexicographicallyPrecedes(lower) : lower.lexicographicallyPrecedes(value))
                                    && (upperInclusive ? !upper.lexicographicallyPrecedes(value) : value.lexicographicallyPrecedes(upper))
                            }.values.flatMap { $0 }.sorted()
                            #expect(index.keys(index: 7, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive) == expected)
                        }
                    }
                }
                let all = plain.values.flatMap { $0 }.sorted()
                #expect(index.keys(index: 7, from: nil, through: nil, lowerInclusive: true, upperInclusive: true) == all)
            }
        }
    }
}
