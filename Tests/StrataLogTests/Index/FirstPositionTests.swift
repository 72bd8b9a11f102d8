import Testing
import StrataTestSupport
@testable import StrataLog

/// The interpolating search of fences and packed blocks (`IndexFile.firstPosition`)
/// against a plain lower bound, on key sets shaped as stores make them (dense serials,
/// gaps from deletes, several entities' serials far apart) and as they should not be
/// (clusters, exponential growth, the ends of UInt64), for every key in the set, its
/// neighbours and keys outside it.
@Suite struct FirstPositionTests {
    static func lowerBound(_ keys: [UInt64], _ key: UInt64) -> Int {
        keys.firstIndex { $0 >= key } ?? keys.count
    }

    static func shapes() -> [(String, [UInt64])] {
        var random = SplitMix(seed: 7)
        var shapes: [(String, [UInt64])] = [
            ("empty", []),
            ("one", [42]),
            ("two", [1, UInt64.max]),
            ("dense", Array(1...500)),
            ("dense, high tag", (0..<300).map { (UInt64(7) << 48) | UInt64($0 + 1) }),
            ("ends of UInt64", [0, 1, 2, UInt64.max - 2, UInt64.max - 1, UInt64.max]),
            ("exponential", (0..<63).map { UInt64(1) << UInt64($0) }),
        ]
        var gapped: [UInt64] = []
        var key: UInt64 = 1
        for _ in 0..<400 {
            key += random.next() % 5 == 0 ? 1 + random.next() % 40 : 1
            gapped.append(key)
        }
        shapes.append(("gaps from deletes", gapped))
        let first: [UInt64] = (1...200).map { (UInt64(1) << 48) | UInt64($0) }
        let second: [UInt64] = (1...200).map { (UInt64(2) << 48) | UInt64($0) }
        shapes.append(("two entities", first + second))
        var clustered: [UInt64] = []
        for cluster in 0..<5 {
            let base = UInt64(cluster) * (UInt64(1) << 60)
            for i in 0..<UInt64(1 + random.next() % 80) { clustered.append(base + i * (1 + random.next() % 3)) }
        }
        shapes.append(("clusters", Array(Set(clustered)).sorted()))
        var uniform = Set<UInt64>()
        while uniform.count < 300 { uniform.insert(random.next()) }
        shapes.append(("uniform random", uniform.sorted()))
        return shapes
    }

    @Test func matchesALowerBoundOnEveryShape() {
        var random = SplitMix(seed: 11)
        for (name, keys) in Self.shapes() {
            var probes: [UInt64] = [0, 1, UInt64.max, UInt64.max - 1]
            for k in keys {
                probes.append(k)
                if k > 0 { probes.append(k - 1) }
                if k < .max { probes.append(k + 1) }
            }
            for _ in 0..<200 { probes.append(random.next()) }
            for probe in probes {
                let found = IndexFile.firstPosition(count: keys.count, atLeast: probe) { keys[$0] }
                #expect(found == Self.lowerBound(keys, probe), "\(name): key \(probe)")
            }
        }
    }

    /// Damaged fences (keys out of order) must not trap or loop: the answer is some
    /// position in range, and the caller's key check rejects a wrong one.
    @Test func keysOutOfOrderStayInRange() {
        var random = SplitMix(seed: 3)
        for _ in 0..<200 {
            let keys = (0..<Int(1 + random.next() % 50)).map { _ in random.next() % 1_000 }
            for _ in 0..<20 {
                let probe = random.next() % 1_100
                let found = IndexFile.firstPosition(count: keys.count, atLeast: probe) { keys[$0] }
                #expect(found >= 0 && found <= keys.count)
            }
        }
    }
}
