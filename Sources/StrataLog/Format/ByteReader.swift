/// Reads little-endian integers from a byte buffer, throwing `.corrupt` instead of
/// trapping when the bytes run out: every byte it reads came from a file.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int
    /// Where the buffer came from, for error messages.
    let path: String?
    /// The file offset of `bytes[0]`, for error messages.
    let baseOffset: Int64

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil, path: String? = nil, baseOffset: Int64 = 0) {
        self.bytes = bytes
        self.position = start
        self.end = min(end ?? bytes.count, bytes.count)
        self.path = path
        self.baseOffset = baseOffset
    }

    var remaining: Int { end - position }
    var isAtEnd: Bool { position >= end }

    func corrupt(_ message: String) -> StrataError {
        StrataError(.corrupt, message, path: path, offset: baseOffset + Int64(position))
    }

    private mutating func need(_ count: Int, _ what: String) throws {
        guard count >= 0, count <= remaining else {
            throw corrupt("truncated \(what): needs \(count) bytes, \(remaining) left")
        }
    }

    mutating func u8(_ what: String = "u8") throws -> UInt8 {
        try need(1, what)
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16(_ what: String = "u16") throws -> UInt16 { try integer(UInt16.self, what) }
    mutating func u32(_ what: String = "u32") throws -> UInt32 { try integer(UInt32.self, what) }
    mutating func u64(_ what: String = "u64") throws -> UInt64 { try integer(UInt64.self, what) }

    mutating func bytes(_ count: Int, _ what: String = "bytes") throws -> [UInt8] {
        try need(count, what)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func skip(_ count: Int, _ what: String = "bytes") throws {
        try need(count, what)
        position += count
    }

    mutating func string16(_ what: String = "string") throws -> String {
        let count = Int(try u16(what))
        return String(decoding: try bytes(count, what), as: UTF8.self)
    }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type, _ what: String) throws -> T {
        let size = MemoryLayout<T>.size
        try need(size, what)
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: T.self) }
        position += size
        return T(littleEndian: value)
    }
}
