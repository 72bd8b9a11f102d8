import StrataLog

/// Helpers shared by the engine's tests: deterministic values and quick opens.
public enum LogFixtures {
    /// A value whose bytes depend on key and version, so a test can tell versions apart.
    public static func value(_ key: UInt64, version: Int = 0, size: Int = 40) -> [UInt8] {
        var generator = SplitMix(seed: key &* 31 &+ UInt64(version))
        let words = ["alpha", "beta", "gamma", "delta", "employee", "salary", "name", "department", "photo"]
        var text = "key=\(key) version=\(version) "
        while text.utf8.count < size { text += words[Int(generator.next() % UInt64(words.count))] + " " }
        return Array(text.utf8.prefix(size))
    }

    /// Bytes that do not compress (a stand-in for a JPEG).
    public static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    /// Every key's current value, by key.
    public static func values(of store: LogStore) throws -> [UInt64: [UInt8]] {
        var found: [UInt64: [UInt8]] = [:]
        try store.scan { records in for r in records { found[r.key.rawValue] = r.value } }
        return found
    }
}

/// A tiny deterministic generator so failures reproduce.
public struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
