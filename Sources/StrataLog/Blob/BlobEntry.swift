/// A blob entry's 32-byte header (FORMAT.md §5.2): magic u32 · flags u32 ·
/// stored length u64 · raw length u64 · data CRC-32C u32 · header CRC-32C u32.
/// The header has its own checksum so recovery can walk entries by their lengths
/// without reading every byte of every blob.
struct BlobEntryHeader {
    var flags: UInt32
    var storedLength: UInt64
    var rawLength: UInt64
    var dataChecksum: UInt32

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Format.blobEntryHeaderSize)
        w.u32(Format.blobEntryMagic)
        w.u32(flags)
        w.u64(storedLength)
        w.u64(rawLength)
        w.u32(dataChecksum)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Parses a header; nil when it is not a whole, intact entry header.
    static func decode(_ bytes: ArraySlice<UInt8>) -> BlobEntryHeader? {
        guard bytes.count >= Format.blobEntryHeaderSize else { return nil }
        let header = Array(bytes.prefix(Format.blobEntryHeaderSize))
        var r = ByteReader(header)
        guard let magic = try? r.u32(), magic == Format.blobEntryMagic,
              let flags = try? r.u32(), let stored = try? r.u64(), let raw = try? r.u64(),
              let dataCRC = try? r.u32(), let headerCRC = try? r.u32(),
              headerCRC == CRC32C.checksum(header[0..<28]) else { return nil }
        return BlobEntryHeader(flags: flags, storedLength: stored, rawLength: raw, dataChecksum: dataCRC)
    }
}
