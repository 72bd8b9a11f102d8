import StrataTestSupport

/// Photo bytes of the lifecycle fixture, the same on every machine and Swift version.
enum FixtureBytes {
    /// `count` bytes that do not compress, like a JPEG's.
    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
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
