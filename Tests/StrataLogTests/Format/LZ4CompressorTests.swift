import Testing
import StrataTestSupport
@testable import StrataLog

/// A compressor reused across blocks must still make each block independent: a random
/// read decompresses one frame, never the ones before it.
@Suite struct LZ4CompressorTests {
    /// Blocks that repeat one another: a block compressed against the one before would
    /// be short, and would not decompress alone.
    static func blocks() -> [[UInt8]] {
        let shared = Array((0..<300).map { "employee \($0 % 37), salary \($0 * 7 % 101);" }.joined().utf8)
        return (0..<6).map { i in shared + Array("block \(i)".utf8) + (i % 2 == 0 ? shared : []) }
    }

    @Test func everyBlockDecompressesAloneAndAsTheOneShotCompressorWouldSave() throws {
        let compressor = try #require(LZ4Compressor())
        for block in Self.blocks() {
            let packed = block.withUnsafeBytes { raw in compressor.compress(raw) { Array($0) } }
            let alone = block.withUnsafeBytes { LZ4.compress($0) }
            #expect((packed == nil) == (alone == nil))
            let bytes = try #require(packed)
            #expect(bytes.withUnsafeBytes { LZ4.decompress($0, rawLength: block.count) } == block)
            // Not smaller than compressing the block on its own: no earlier block helped.
            #expect(bytes.count >= (alone?.count ?? 0) - 8)
        }
        // Incompressible and tiny blocks are left raw, as the one-shot compressor leaves them.
        var random = SplitMix(seed: 9)
        let noise = (0..<4_096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(noise.withUnsafeBytes { raw in compressor.compress(raw) { Array($0) } } == nil)
        #expect([UInt8](repeating: 0, count: 32).withUnsafeBytes { raw in compressor.compress(raw) { Array($0) } } == nil)
    }

    /// A records frame written through a reused compressor reads as one written by a
    /// fresh one.
    @Test func aRecordsFrameReadsBackLikeAOneShotFrame() throws {
        let compressor = try #require(LZ4Compressor())
        for block in Self.blocks() + [[UInt8](repeating: 1, count: 20)] {
            var reused: [UInt8] = []
            FrameCodec.appendRecords(block, compressor: compressor, to: &reused)
            var oneShot: [UInt8] = []
            FrameCodec.appendRecords(block, compressor: try #require(LZ4Compressor()), to: &oneShot)
            for frame in [reused, oneShot] {
                let header = try #require(FrameCodec.parseHeader(Array(frame[..<Format.frameHeaderSize])))
                let stored = frame[Format.frameHeaderSize...]
                #expect(header.length == stored.count && header.typeByte == FrameType.records.rawValue)
                #expect(FrameCodec.checksum(header: Array(frame[..<Format.frameHeaderSize]), payload: stored) == header.checksum)
                #expect(try FrameCodec.rawPayload(flags: header.flags, stored: stored, path: "", offset: 0) == block)
            }
            #expect(reused[9] == oneShot[9], "the same flags")
        }
    }
}
