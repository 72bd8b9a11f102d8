import Testing
import StrataTestSupport
@testable import StrataLog

/// Frames are written in place (header, raw length and LZ4 block straight into the
/// output): every frame of a run of varied payloads must read back as given, with
/// its length, checksum and flags right, compressed or not.
@Suite struct FrameAppendTests {
    /// Payloads of varied size and compressibility, appended one after another.
    static func payloads() -> [[UInt8]] {
        var rng = SplitMix(seed: 77)
        var payloads: [[UInt8]] = [[], [1, 2, 3]]
        for i in 0..<40 {
            let size = [40, 900, 4_096, 16_384, 70_000][i % 5]
            switch i % 3 {
            case 0: payloads.append((0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) })   // incompressible
            case 1: payloads.append((0..<size).map { UInt8(truncatingIfNeeded: $0 / 7) })            // runs
            default: payloads.append((0..<size).map { _ in UInt8(rng.next() % 4) + 65 })              // a small alphabet
            }
        }
        return payloads
    }

    @Test(arguments: [true, false])
    func framesReadBackAsGiven(compress: Bool) throws {
        var out: [UInt8] = [9, 9, 9]   // frames need not start the buffer
        var starts: [Int] = []
        let payloads = Self.payloads()
        let compressor = compress ? LZ4Compressor() : nil
        for payload in payloads {
            starts.append(out.count)
            FrameCodec.appendRecords(payload, compressor: compressor, to: &out)
        }
        starts.append(out.count)
        var compressed = 0
        for (i, payload) in payloads.enumerated() {
            let frame = Array(out[starts[i]..<starts[i + 1]])
            let header = try #require(FrameCodec.parseHeader(frame))
            #expect(header.length == frame.count - Format.frameHeaderSize, "frame \(i)")
            #expect(header.typeByte == FrameType.records.rawValue && header.reserved == 0, "frame \(i)")
            let stored = frame[Format.frameHeaderSize...]
            #expect(FrameCodec.checksum(header: Array(frame[0..<Format.frameHeaderSize]), payload: stored) == header.checksum, "frame \(i)")
            if header.flags == FrameFlags.lz4 {
                compressed += 1
                #expect(stored.count <= 4 + payload.count * 7 / 8, "frame \(i)")
            } else {
                #expect(Array(stored) == payload, "frame \(i)")
            }
            #expect(try FrameCodec.rawPayload(flags: header.flags, stored: stored, path: "test", offset: Int64(starts[i])) == payload, "frame \(i)")
        }
        #expect(compress ? compressed >= 20 : compressed == 0)
    }
}
