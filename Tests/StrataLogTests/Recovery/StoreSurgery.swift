import StrataTestSupport
@testable import StrataLog

/// Structure-aware edits of a closed store's files with their checksums recomputed,
/// as a bad backup tool, a bug or an attacker would make them: the damage the CRCs
/// cannot see, which open must find by cross-checking.
enum StoreSurgery {
    struct Frame {
        var offset: Int
        var type: UInt8
        var flags: UInt8
        var payload: [UInt8]
        var length: Int { Format.frameHeaderSize + payload.count }
    }

    static func segment(_ store: String, _ id: UInt32) -> String { StorePaths(store).segment(id) }
    static func hint(_ store: String, _ id: UInt32) -> String { StorePaths(store).hint(id) }

    static func manifest(_ store: String) throws -> Manifest {
        try Manifest.decode(try FileBytes.read(store + "/MANIFEST"), path: store + "/MANIFEST")
    }

    static func editManifest(_ store: String, _ edit: (inout Manifest) -> Void) throws {
        var m = try manifest(store)
        edit(&m)
        try FileBytes.write(m.encoded(), to: store + "/MANIFEST")
    }

    static func frames(_ path: String) throws -> [Frame] {
        let bytes = try FileBytes.read(path)
        var frames: [Frame] = []
        var offset = Format.segmentHeaderSize
        while offset + Format.frameHeaderSize <= bytes.count {
            guard let header = FrameCodec.parseHeader(Array(bytes[offset..<offset + Format.frameHeaderSize])),
                  header.typeByte != 0, offset + Format.frameHeaderSize + header.length <= bytes.count else { break }
            let start = offset + Format.frameHeaderSize
            frames.append(Frame(offset: offset, type: header.typeByte, flags: header.flags, payload: Array(bytes[start..<start + header.length])))
            offset = start + header.length
        }
        return frames
    }

    /// A frame's bytes with its CRC recomputed over the given payload.
    static func encode(type: UInt8, flags: UInt8, payload: [UInt8]) -> [UInt8] {
        var header = ByteWriter(capacity: Format.frameHeaderSize)
        header.u32(UInt32(payload.count))
        header.u32(0)
        header.u8(type)
        header.u8(flags)
        header.u16(0)
        header.patch(u32: FrameCodec.checksum(header: header.bytes, payload: payload), at: 4)
        return header.bytes + payload
    }

    /// Replaces the payload of frame `index` (the frame may change length: what follows moves).
    static func editFrame(_ path: String, _ index: Int, _ edit: (inout [UInt8]) -> Void) throws {
        let all = try frames(path)
        var bytes = try FileBytes.read(path)
        let frame = all[index]
        var payload = frame.payload
        edit(&payload)
        bytes.replaceSubrange(frame.offset..<frame.offset + frame.length, with: encode(type: frame.type, flags: frame.flags, payload: payload))
        try FileBytes.write(bytes, to: path)
    }

    /// Keeps the frames `keep` selects (in order), then writes `extra` frames.
    static func rewriteFrames(_ path: String, keep: (Int, Frame) -> Bool, appending extra: [[UInt8]] = []) throws {
        let bytes = try FileBytes.read(path)
        var out = Array(bytes[0..<Format.segmentHeaderSize])
        for (i, frame) in try frames(path).enumerated() where keep(i, frame) {
            out += bytes[frame.offset..<frame.offset + frame.length]
        }
        for frame in extra { out += frame }
        try FileBytes.write(out, to: path)
    }

    static func putU64(_ value: UInt64, at offset: Int, in bytes: inout [UInt8]) {
        for i in 0..<8 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
    }

    static func putU32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    static func u64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    static func u32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    static func removeHints(_ store: String) throws {
        let fs = POSIXFileSystem()
        for name in try fs.contentsOfDirectory(store + "/index") { try fs.remove(store + "/index/" + name) }
    }

    /// Offsets of each record inside an uncompressed records block's payload.
    static func recordOffsets(_ payload: [UInt8]) throws -> [Int] {
        var reader = ByteReader(payload)
        let count = Int(try reader.u32())
        var offsets: [Int] = []
        for _ in 0..<count {
            offsets.append(reader.position)
            _ = try RecordCodec.decode(&reader)
        }
        return offsets
    }
}
