/// The Bloom filter of an index file (FORMAT.md §7.5): about ten bits per key and six
/// probes, so a key the file does not hold costs one filter probe about 99% of the time
/// instead of a fence search and a data block read.
struct BloomFilter {
    static let bitsPerKey = 10
    static let probes: UInt8 = 6

    /// The filter block's body (without its CRC): probes, bit count, bits.
    static func build(keys: [RecordKey]) -> [UInt8] {
        let bitCount = bitCount(keys: keys.count)
        var bits = [UInt8](repeating: 0, count: bitCount / 8)
        for key in keys { set(key, bits: &bits, bitCount: bitCount) }
        var w = ByteWriter(capacity: bits.count + 8)
        w.u8(probes)
        w.u32(UInt32(bitCount))
        w.bytes(bits)
        return w.bytes
    }

    /// The filter's size in bits for `keys` keys (a whole number of bytes, at least 64).
    static func bitCount(keys: Int) -> Int { max(64, (keys * bitsPerKey + 7) / 8 * 8) }

    /// Sets `key`'s bits in a filter of `bitCount` bits (`bits` holds `bitCount / 8` bytes).
    static func set(_ key: RecordKey, bits: inout [UInt8], bitCount: Int) {
        forEachBit(key, bitCount: UInt64(bitCount), probes: probes) { bit in bits[Int(bit >> 3)] |= 1 << UInt8(bit & 7) }
    }

    /// Whether the filter in `block` (body and CRC, already checked) may hold `key`.
    /// A malformed filter admits everything: it only ever saves work. Malformed is any
    /// shape no writer makes (FORMAT.md §7.5): probes other than 6, a bit count that is
    /// not a whole number of bytes (its last bits would be read from the CRC), bits
    /// running past the block.
    static func mayContain(_ key: RecordKey, block: [UInt8]) -> Bool {
        guard block.count >= 9 else { return true }
        let probes = block[0]
        let bitCount = UInt64(block[1]) | UInt64(block[2]) << 8 | UInt64(block[3]) << 16 | UInt64(block[4]) << 24
        guard probes == Self.probes, bitCount > 0, bitCount % 8 == 0, bitCount / 8 + 5 + 4 <= UInt64(block.count) else { return true }
        var admitted = true
        forEachBit(key, bitCount: bitCount, probes: probes) { bit in
            if block[5 + Int(bit >> 3)] & (1 << UInt8(bit & 7)) == 0 { admitted = false }
        }
        return admitted
    }

    /// The probed bits: double hashing over the SplitMix64 finalizer of the key
    /// (FORMAT.md §7.5 gives the arithmetic).
    private static func forEachBit(_ key: RecordKey, bitCount: UInt64, probes: UInt8, _ body: (UInt64) -> Void) {
        let h = mix(key.rawValue)
        let delta = (h >> 33) | 1
        var x = h
        for _ in 0..<probes {
            body(x % bitCount)
            x &+= delta
        }
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
