/// SplitMix64, so the photo bytes are the same on every machine and Swift version.
struct FixtureRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` bytes that do not compress, like a JPEG's.
    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = FixtureRandom(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Array(bytes.prefix(count))
    }

    /// `count` bytes in long runs, which LZ4 compresses.
    static func flat(_ count: Int, seed: UInt64) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: Int(seed) &+ $0 / 512) }
    }
}
