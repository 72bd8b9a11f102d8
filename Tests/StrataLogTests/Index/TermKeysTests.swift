import Testing
import StrataTestSupport
@testable import StrataLog

/// Term reads walk the term blocks in place (`IndexFile.terms`, and `termKeys`, which
/// an index read uses): the same terms, in the same order, as decoding every block the
/// checked way (`readAll`) and filtering by the bounds, for random files of several indexes and values
/// of many lengths (prefixes of one another among them), under every kind of bound;
/// and a damaged term block is an error either way, with nothing handed over.
@Suite struct TermKeysTests {
    static let storeID = [UInt8](repeating: 3, count: 16)

    static func file(_ terms: [IndexTermEntry], bytes: ((inout [UInt8]) -> Void)? = nil) throws -> IndexFile {
        let sorted = terms.sorted(by: IndexTermEntry.precedes)
        let keys = Set(sorted.map(\.key)).sorted()
        let entries = keys.map { key in
            IndexEntry(key: key, sequence: 1, isTombstone: false,
                       location: RecordLocation(segment: 1, frameOffset: 48, frameLength: 100, recordOffset: 4, recordLength: 30), blobs: [])
        }
        var encoded = try IndexFileBuilder.encode(entries: entries, terms: sorted, segmentID: 1, storeID: storeID, minSequence: 1,
                                              maxSequence: 9, recordBytes: Int64(30 * keys.count), segmentLength: 1 << 20)
        bytes?(&encoded)
        return try IndexFile(file: ByteArrayFile(path: "000001.idx", bytes: encoded), segmentID: 1, storeID: storeID, cache: BlockCache(budget: 1 << 20))
    }

    static func value(_ random: inout SplitMix) -> [UInt8] {
        // Short values over few bytes, so that equal values, prefixes and neighbours abound.
        (0..<Int(random.next() % 4)).map { _ in UInt8(random.next() % 3) }
    }

    /// The bounds' byte order, which compares eight bytes at a time: as
    /// `lexicographicallyPrecedes` on values up to 20 bytes over two byte values, so
    /// that long common prefixes, prefixes of one another and a first difference in
    /// every position of a word or of the tail abound.
    @Test func boundsCompareBytewise() {
        var random = SplitMix(seed: 41)
        for _ in 0..<20_000 {
            let a = (0..<Int(random.next() % 21)).map { _ in UInt8(random.next() % 2) * 0x81 }
            var b = random.next() % 3 == 0 ? a : (0..<Int(random.next() % 21)).map { _ in UInt8(random.next() % 2) * 0x81 }
            if random.next() % 3 == 0, !b.isEmpty { b[Int(random.next() % UInt64(b.count))] ^= 0x81 }
            a.withUnsafeBytes { ra in
                b.withUnsafeBytes { rb in
                    #expect((TermBytes.bytewiseOrder(ra, rb) < 0) == a.lexicographicallyPrecedes(b), "\(a) < \(b)")
                    #expect((TermBytes.bytewiseOrder(rb, ra) < 0) == b.lexicographicallyPrecedes(a), "\(b) < \(a)")
                    #expect((TermBytes.bytewiseOrder(ra, rb) == 0) == (a == b), "\(a) == \(b)")
                }
            }
        }
    }

    @Test func keysMatchDecodedTerms() throws {
        var random = SplitMix(seed: 77)
        for round in 0..<30 {
            var terms: [IndexTermEntry] = []
            var seen = Set<String>()
            for _ in 0..<(50 + Int(random.next() % 900)) {
                let term = IndexTermEntry(index: UInt32(1 + random.next() % 3), value: TermBytes(Self.value(&random)),
                                          key: RecordKey(1 + random.next() % 400), sequence: 1 + random.next() % 9)
                // One term per (index, value, key): as a file holds them.
                guard seen.insert("\(term.index) \(term.value.bytes) \(term.key)").inserted else { continue }
                terms.append(term)
            }
            let file = try Self.file(terms)
            for _ in 0..<40 {
                let index = UInt32(random.next() % 5)
                let lower: [UInt8]? = random.next() % 4 == 0 ? nil : Self.value(&random)
                let upper: [UInt8]? = random.next() % 4 == 0 ? nil : Self.value(&random)
                let lowerInclusive = random.next() % 2 == 0, upperInclusive = random.next() % 2 == 0
                // The model: every term, decoded block by block the checked way, filtered.
                let decoded = try file.readAll().terms.filter { t in
                    let v = t.value.bytes
                    guard t.index == index else { return false }
                    if let lower, v.lexicographicallyPrecedes(lower) || (!lowerInclusive && v == lower) { return false }
                    if let upper, upper.lexicographicallyPrecedes(v) || (!upperInclusive && v == upper) { return false }
                    return true
                }
                var listed: [IndexTermEntry] = []
                try file.terms(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive) { listed.append($0) }
                var read: [String] = []
                try file.termKeys(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive) {
                    read.append("\($0)@\($1)")
                }
                let bounds = "index \(index) from \(String(describing: lower)) \(lowerInclusive) through \(String(describing: upper)) \(upperInclusive)"
                #expect(listed == decoded, "round \(round): \(bounds)")
                #expect(read == decoded.map { "\($0.key)@\($0.sequence)" }, "round \(round): \(bounds)")
            }
        }
    }

    /// The fence is read only as far as the first block whose last term sorts past the
    /// upper bound: a value equal to the bound that runs on over several blocks is still
    /// read whole, and the block after a bound's last term is not needed.
    @Test func aValueRunningOverSeveralBlocksIsReadWholeUpToItsBound() throws {
        let terms = (1...3_000).map { key in
            IndexTermEntry(index: 1, value: TermBytes([UInt8(key % 3)]), key: RecordKey(UInt64(key)), sequence: 1)
        }
        let file = try Self.file(terms)
        #expect(try file.readAll().terms.count == 3_000)
        for value: UInt8 in 0...2 {
            for upperInclusive in [true, false] {
                var read: [RecordKey] = []
                try file.termKeys(index: 1, from: [value], through: [value], lowerInclusive: true, upperInclusive: upperInclusive) { key, _ in read.append(key) }
                let expected = upperInclusive ? terms.filter { $0.value.bytes == [value] }.map(\.key) : []
                #expect(read == expected, "value \(value), upper inclusive \(upperInclusive)")
            }
            var below: [RecordKey] = []
            try file.termKeys(index: 1, from: nil, through: [value], lowerInclusive: true, upperInclusive: true) { key, _ in below.append(key) }
            #expect(Set(below) == Set(terms.filter { $0.value.bytes[0] <= value }.map(\.key)), "through \(value)")
        }
    }

    /// A walk caches the term fence and blocks it checked (`IndexFile.checkedFlag`) and
    /// later walks read them unchecked: the same terms each time, and a fence or block
    /// whose checksum holds but whose entries do not parse (one more entry announced
    /// than it holds) is an error at every walk, never cached as checked.
    @Test func onlyATermBlockThatParsesIsCachedChecked() throws {
        var random = SplitMix(seed: 79)
        let terms = (1...300).map { key in
            IndexTermEntry(index: 1, value: TermBytes([UInt8(key % 7)]), key: RecordKey(UInt64(key)), sequence: 1 + random.next() % 9)
        }
        func walk(_ file: IndexFile) throws -> [String] {
            var read: [String] = []
            try file.termKeys(index: 1, from: [2], through: [5], lowerInclusive: true, upperInclusive: false) { read.append("\($0)@\($1)") }
            return read
        }
        let intact = try Self.file(terms)
        let first = try walk(intact)
        #expect(first.count == terms.filter { (2..<5).contains($0.value.bytes[0]) }.count)
        #expect(try walk(intact) == first)
        // The first term block's handle, from the fence: count u32, then index u32,
        // value length u16, value, last key u64, offset u64, length u32.
        let encoded = try IndexFileBuilder.encode(
            entries: Set(terms.map(\.key)).sorted().map {
                IndexEntry(key: $0, sequence: 1, isTombstone: false,
                           location: RecordLocation(segment: 1, frameOffset: 48, frameLength: 100, recordOffset: 4, recordLength: 30), blobs: [])
            },
            terms: terms.sorted(by: IndexTermEntry.precedes), segmentID: 1, storeID: Self.storeID, minSequence: 1, maxSequence: 9,
            recordBytes: Int64(30 * terms.count), segmentLength: 1 << 20)
        let fenceAt = Int(intact.footer.termFence.offset)
        func u64(_ at: Int) -> UInt64 { encoded[at..<at + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        let valueLength = Int(encoded[fenceAt + 8]) | Int(encoded[fenceAt + 9]) << 8
        let blockAt = Int(u64(fenceAt + 10 + valueLength + 8))
        let blockLength = Int(UInt32(truncatingIfNeeded: u64(fenceAt + 10 + valueLength + 16) & 0xFFFF_FFFF))
        for (start, length) in [(blockAt, blockLength), (fenceAt, Int(intact.footer.termFence.length))] {
            let damaged = try Self.file(terms) { bytes in
                let end = start + length
                bytes[start] &+= 1
                let crc = CRC32C.checksum(bytes[start..<end - 4])
                for i in 0..<4 { bytes[end - 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
            }
            for attempt in 0..<2 {
                #expect(throws: IndexFile.Damage.self, "block at \(start), walk \(attempt)") { try walk(damaged) }
            }
        }
    }

    @Test func aDamagedTermBlockOrFenceIsAnErrorEitherWay() throws {
        var random = SplitMix(seed: 78)
        let terms = (1...300).map { key in
            IndexTermEntry(index: 1, value: TermBytes([UInt8(key % 7)]), key: RecordKey(UInt64(key)), sequence: 1 + random.next() % 9)
        }
        let intact = try Self.file(terms)
        // The last term block ends where the data fence begins; the term fence is its own block.
        for at in [Int(intact.footer.dataFence.offset) - 10, Int(intact.footer.termFence.offset) + 5] {
            let damaged = try Self.file(terms) { $0[at] ^= 0x5A }
            #expect(throws: IndexFile.Damage.self, "byte \(at)") {
                try damaged.termKeys(index: 1, from: nil, through: nil, lowerInclusive: true, upperInclusive: true) { _, _ in }
            }
            #expect(throws: IndexFile.Damage.self, "byte \(at)") {
                try damaged.terms(index: 1, from: nil, through: nil, lowerInclusive: true, upperInclusive: true) { _ in }
            }
        }
    }
}
