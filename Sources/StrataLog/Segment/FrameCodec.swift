/// Frames (FORMAT.md §3.2): a 12-byte header — stored payload length u32, CRC-32C u32,
/// type u8, flags u8, reserved u16 — and the payload. The checksum covers the length
/// field, the type, flags and reserved bytes, and the payload, so a damaged length
/// is caught too.
enum FrameCodec {
    /// Appends one frame of `payload`, stored as it is, to `out`.
    static func append(type: FrameType, payload: [UInt8], to out: inout [UInt8]) {
        payload.withUnsafeBytes { append(type: type, flags: 0, rawLength: nil, stored: $0, to: &out) }
    }

    /// Appends a records frame of `block` (FORMAT.md §3.3), compressed by `compressor`
    /// when that saves an eighth or more (nil: stored raw). The compressed bytes go
    /// straight from the compressor's buffer to `out`.
    static func appendRecords(_ block: [UInt8], compressor: LZ4Compressor?, to out: inout [UInt8]) {
        block.withUnsafeBytes { raw in
            let compressed: Void? = compressor?.compress(raw) { packed in
                append(type: .records, flags: FrameFlags.lz4, rawLength: UInt32(raw.count), stored: packed, to: &out)
            }
            if compressed == nil { append(type: .records, flags: 0, rawLength: nil, stored: raw, to: &out) }
        }
    }

    /// Appends a frame whose stored payload is `rawLength` (an LZ4 block's, when given)
    /// followed by `stored`: the header, its checksum over both, then the payload.
    private static func append(type: FrameType, flags: UInt8, rawLength: UInt32?, stored: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var header = ByteWriter(capacity: Format.frameHeaderSize + 4)
        header.u32(UInt32((rawLength == nil ? 0 : 4) + stored.count))
        header.u32(0)
        header.u8(type.rawValue)
        header.u8(flags)
        header.u16(0)
        if let rawLength { header.u32(rawLength) }
        let crc = header.bytes.withUnsafeBytes { h in
            CRC32C.checksum(stored, continuing: checksum(header: h, payload: UnsafeRawBufferPointer(rebasing: h[Format.frameHeaderSize...])))
        }
        header.patch(u32: crc, at: 4)
        out.append(contentsOf: header.bytes)
        out.append(contentsOf: stored)
    }

    static func checksum(header: [UInt8], payload: [UInt8]) -> UInt32 {
        checksum(header: header, payload: payload[...])
    }

    /// `checksum(header:payload:)` of a payload still inside the bytes read.
    static func checksum(header: [UInt8], payload: ArraySlice<UInt8>) -> UInt32 {
        header.withUnsafeBytes { h in payload.withUnsafeBytes { checksum(header: h, payload: $0) } }
    }

    /// `checksum(header:payload:)` of a frame read into a buffer: its first 12 bytes
    /// the header, `payload` the stored payload after them.
    static func checksum(header: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: header[0..<4]))
        crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: header[8..<12]), continuing: crc)
        return CRC32C.checksum(payload, continuing: crc)
    }

    /// The parsed fixed part of a frame header.
    struct Header {
        var length: Int
        var checksum: UInt32
        var typeByte: UInt8
        var flags: UInt8
        var reserved: UInt16
    }

    static func parseHeader(_ bytes: UnsafeRawBufferPointer) -> Header? {
        guard bytes.count >= Format.frameHeaderSize else { return nil }
        func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        return Header(length: Int(u32(0)), checksum: u32(4), typeByte: bytes[8], flags: bytes[9],
                      reserved: UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 10, as: UInt16.self)))
    }

    static func parseHeader(_ bytes: [UInt8]) -> Header? {
        bytes.withUnsafeBytes { parseHeader($0) }
    }

    /// The payload as the writer gave it: decompressed when the frame is LZ4. The
    /// payload may still lie inside the bytes read: it is decompressed from there,
    /// without first being copied out.
    static func rawPayload(flags: UInt8, stored: ArraySlice<UInt8>, path: String, offset: Int64) throws -> [UInt8] {
        try rawPayload(flags: flags, stored: stored, path: path, offset: offset, prefix: .max).raw
    }

    /// `rawPayload`, decoding a compressed payload only as far as its first `prefix`
    /// bytes (all of it when it is shorter); also whether the payload came out whole.
    static func rawPayload(flags: UInt8, stored: ArraySlice<UInt8>, path: String, offset: Int64, prefix: Int) throws -> (raw: [UInt8], whole: Bool) {
        guard flags & FrameFlags.lz4 != 0 else { return (Array(stored), true) }
        return try stored.withUnsafeBytes { try rawPayload(flags: flags, stored: $0, path: path, offset: offset, prefix: prefix) }
    }

    /// `rawPayload(flags:stored:path:offset:prefix:)` of a payload in a buffer the
    /// caller reuses: the result is always a new array.
    static func rawPayload(flags: UInt8, stored bytes: UnsafeRawBufferPointer, path: String, offset: Int64, prefix: Int) throws -> (raw: [UInt8], whole: Bool) {
        guard flags & FrameFlags.lz4 != 0 else { return (Array(bytes), true) }
        guard bytes.count >= 4 else {
            throw StrataError(.corrupt, "LZ4 payload of \(bytes.count) bytes has no raw length", path: path, offset: offset)
        }
        let rawLength = Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
        guard rawLength <= Format.maxFramePayload * 8,
              let raw = LZ4.decompress(UnsafeRawBufferPointer(rebasing: bytes[4...]), rawLength: rawLength, prefix: min(prefix, rawLength)) else {
            throw StrataError(.corrupt, "LZ4 block does not decompress to its recorded \(rawLength) bytes", path: path, offset: offset)
        }
        return (raw, raw.count == rawLength)
    }

    /// `rawPayload` of a payload already on its own: returned as it is when stored raw.
    static func rawPayload(flags: UInt8, stored: [UInt8], path: String, offset: Int64) throws -> [UInt8] {
        guard flags & FrameFlags.lz4 != 0 else { return stored }
        return try rawPayload(flags: flags, stored: stored[...], path: path, offset: offset)
    }
}
