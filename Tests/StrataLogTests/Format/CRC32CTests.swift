import Testing
@testable import StrataLog

/// The CPU's CRC-32C instruction and the table-driven code must give the same bytes:
/// a store written on one machine is read on another (FORMAT.md §2). The catalogue
/// vectors are in `FormatSpecTests.crcTestVectors`; here the two paths are compared at
/// every length around the 8-byte steps, every start alignment, and in pieces.
@Suite struct CRC32CTests {
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    @Test func theCatalogueCheckValueOnBothPaths() {
        let check = Array("123456789".utf8)
        #expect(check.withUnsafeBytes { CRC32C.softwareChecksum($0) } == 0xE306_9283)
        if CRC32C.usesHardware {
            #expect(check.withUnsafeBytes { CRC32C.hardwareChecksum($0) } == 0xE306_9283)
        }
    }

    @Test func hardwareAndSoftwareAgreeAtEveryLengthAndAlignment() throws {
        guard CRC32C.usesHardware else { return }  // nothing to compare on this CPU
        let data = Self.bytes(4_200, seed: 7)
        // The hardware path checksums three lanes of 512 bytes, then of 64, side by side:
        // lengths around each lane boundary and multiples of it.
        var lanes: [Int] = []
        for lane in [64, 512] {
            let three = 3 * lane
            lanes += [three - 1, three, three + 1, three + 7, three + 8, 2 * three, 2 * three + 65]
        }
        data.withUnsafeBytes { all in
            for start in 0..<8 {
                for length in Array(0...80) + lanes + [511, 512, 513, 1_500, 4_095, 4_096, 4_097, 4_192 - start] {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    for seed: UInt32 in [0, 0xDEAD_BEEF] {
                        #expect(CRC32C.hardwareChecksum(slice, continuing: seed) == CRC32C.softwareChecksum(slice, continuing: seed),
                                "start \(start), length \(length), continuing \(seed)")
                    }
                }
            }
        }
    }

    @Test func continuingOverPiecesEqualsOneChecksum() {
        let data = Self.bytes(10_000, seed: 11)
        let whole = CRC32C.checksum(data)
        for cut in [1, 7, 8, 9, 4_096, 9_999] {
            let joined = CRC32C.checksum(data[cut...], continuing: CRC32C.checksum(data[..<cut]))
            #expect(joined == whole, "cut at \(cut)")
        }
        #expect(whole == data.withUnsafeBytes { CRC32C.softwareChecksum($0) })
    }
}
