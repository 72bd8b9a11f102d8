/// SplitMix64: tiny and deterministic, so the crash tests can recompute exactly what
/// the worker wrote from the seed and the transaction number alone, and the fixture
/// writer makes the same photo bytes on every machine and Swift version.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one (seed, stream) pair; mixing keeps neighbouring streams apart.
    public init(seed: UInt64, stream: UInt64, _ salt: UInt64 = 0) {
        var mixer = SeededRandom(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03) ^ (salt &* 0x8CB9_2BA7_2F3D_8DD7))
        state = mixer.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range`, drawn without Swift's rejection sampling so that the
    /// sequence never depends on the standard library's algorithm.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool { int(in: 0...99) < percent }
}
