import Testing
import Glibc
@testable import StrataLog

/// A damaged or hostile raw length — four bytes of a records frame or a blob entry —
/// must not make the reader allocate what the compressed bytes could never produce.
@Suite struct LZ4BoundTests {
    @Test func theMostCompressibleBlocksStillDecompress() throws {
        for size in [33, 4096, 1 << 20] {
            let raw = [UInt8](repeating: 0, count: size)
            let compressed = try #require(raw.withUnsafeBytes { LZ4.compress($0) })
            #expect(size <= LZ4.maximumRawLength(compressed: compressed.count), "\(size) bytes from \(compressed.count)")
            #expect(compressed.withUnsafeBytes { LZ4.decompress($0, rawLength: size) } == raw)
        }
    }

    @Test func aRawLengthTheBlockCannotProduceIsRefusedWithoutAllocating() throws {
        let block: [UInt8] = [0x10, 0x61, 0x62, 0x63]
        let before = Self.peakResidentKiB()
        #expect(block.withUnsafeBytes { LZ4.decompress($0, rawLength: 0x1F00_0000) } == nil)
        let rise = Self.peakResidentKiB() - before
        // 496 MiB would have been allocated (and zeroed) before the bound.
        #expect(rise < 256 << 10, "peak resident set rose by \(rise) KiB")
        #expect(LZ4.maximumRawLength(compressed: 4) == 4 * 255 + 16)
        #expect(LZ4.maximumRawLength(compressed: .max) > 0)
    }

    static func peakResidentKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
