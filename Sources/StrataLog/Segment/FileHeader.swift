/// The 48-byte header shared by segment and blob files (FORMAT.md §3.1, §5.1):
/// magic (8) · format version u32 · file id u32 · store UUID (16) · reserved (12) · CRC-32C u32.
struct FileHeader: Equatable {
    var magic: [UInt8]
    var version: UInt32
    var fileID: UInt32
    var storeID: [UInt8]

    static let size = 48

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.bytes(magic)
        writer.u32(version)
        writer.u32(fileID)
        writer.bytes(storeID)
        writer.bytes([UInt8](repeating: 0, count: 12))
        writer.u32(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Parses and checks a header; throws `.corrupt` or `.unsupportedFormat` naming the file.
    static func decode(_ bytes: [UInt8], expectedMagic: [UInt8], path: String) throws -> FileHeader {
        guard bytes.count == size else {
            throw StrataError(.corrupt, "file header is \(bytes.count) bytes, expected \(size)", path: path, offset: 0)
        }
        var reader = ByteReader(bytes, path: path)
        let magic = try reader.bytes(8, "magic")
        guard magic == expectedMagic else {
            throw StrataError(.corrupt, "wrong magic number (not a \(String(decoding: expectedMagic, as: UTF8.self)) file)", path: path, offset: 0)
        }
        let version = try reader.u32("version")
        let fileID = try reader.u32("file id")
        let storeID = try reader.bytes(16, "store id")
        try reader.skip(12, "reserved")
        let crc = try reader.u32("header checksum")
        guard crc == CRC32C.checksum(bytes[0..<44]) else {
            throw StrataError(.corrupt, "file header checksum mismatch", path: path, offset: 44)
        }
        guard Format.readableVersions.contains(version) else {
            throw StrataError(.unsupportedFormat, "format version \(version) is not readable by this release (reads \(Format.readableVersions))", path: path, offset: 8)
        }
        return FileHeader(magic: magic, version: version, fileID: fileID, storeID: storeID)
    }
}
