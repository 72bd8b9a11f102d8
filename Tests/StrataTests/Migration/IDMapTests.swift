import Testing
@testable import Strata
import StrataLog

/// The on-disk id map answers what a dictionary of every pair would: sources with
/// several destinations straddling block boundaries, sources only in the pending
/// batch, sources never associated, and lookups in any order after many spills.
@Suite struct IDMapTests {
    private func makeMap(spillThreshold: Int) throws -> IDMap {
        let fileSystem = InMemoryFileSystem()
        try fileSystem.createDirectory("/staging")
        return IDMap(file: try fileSystem.open("/staging/map", mode: .create), spillThreshold: spillThreshold)
    }

    @Test(arguments: [1, 7, 256, 1_000])
    func lookupsMatchAPlainMap(spillThreshold: Int) throws {
        let map = try makeMap(spillThreshold: spillThreshold)
        var plain: [UInt64: [UInt64]] = [:]
        var generator = SystemRandomNumberGenerator()
        var source: UInt64 = 0
        var destination: UInt64 = 1_000_000
        for _ in 0..<1_500 {
            // Gaps between sources (filtered-out objects) and 0–3 destinations each,
            // so runs of one source cross the 256-pair blocks of the file.
            source += UInt64.random(in: 1...3, using: &generator)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                destination += 1
                try map.associate(source: RecordKey(source), destination: RecordKey(destination))
                plain[source, default: []].append(destination)
            }
            if Int.random(in: 0..<50, using: &generator) == 0 {
                // Lookups while pairs are still pending, some of them in the file.
                let probe = UInt64.random(in: 0...source + 1, using: &generator)
                #expect(try map.destinations(of: RecordKey(probe)).map(\.rawValue) == plain[probe] ?? [])
            }
        }
        try map.spill()
        #expect(map.count == plain.values.reduce(0) { $0 + $1.count })
        for probe in (0...source + 2).shuffled() {
            #expect(try map.destinations(of: RecordKey(probe)).map(\.rawValue) == plain[probe] ?? [], "source \(probe)")
        }
        var streamed: [UInt64: [UInt64]] = [:]
        try map.forEach { s, d in streamed[s.rawValue, default: []].append(d.rawValue) }
        #expect(streamed == plain)
    }

    @Test func oneSourceSpanningManyBlocks() throws {
        let map = try makeMap(spillThreshold: 100)
        try map.associate(source: RecordKey(1), destination: RecordKey(10))
        for d in 0..<1_000 as Range<UInt64> { try map.associate(source: RecordKey(5), destination: RecordKey(100 + d)) }
        try map.associate(source: RecordKey(9), destination: RecordKey(11))
        try map.spill()
        #expect(try map.destinations(of: RecordKey(5)).map(\.rawValue) == Array(100..<1_100))
        #expect(try map.destinations(of: RecordKey(1)).map(\.rawValue) == [10])
        #expect(try map.destinations(of: RecordKey(9)).map(\.rawValue) == [11])
        #expect(try map.destinations(of: RecordKey(7)).isEmpty)
    }

    @Test func sourcesOutOfOrderAreRefusedAtSpill() throws {
        let map = try makeMap(spillThreshold: 10)
        try map.associate(source: RecordKey(5), destination: RecordKey(1))
        try map.associate(source: RecordKey(3), destination: RecordKey(2))
        // Still answered correctly before the spill refuses them.
        #expect(try map.destinations(of: RecordKey(3)).map(\.rawValue) == [2])
        #expect(throws: StrataError.self) { try map.spill() }
    }
}
