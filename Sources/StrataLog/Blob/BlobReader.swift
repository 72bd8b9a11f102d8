/// Reads one blob by reference: one `pread` of header and data, both checksums
/// verified, decompressed when the entry says so (FORMAT.md §5).
enum BlobReader {
    static func read(_ ref: BlobRef, from file: any StorageFile) throws -> (bytes: [UInt8], storedBytes: Int) {
        // Checked before any conversion: a reference comes from a record, which came
        // from a file, and `Int(u64.max)` traps.
        guard ref.length <= UInt64(Int32.max) * 4, ref.length <= Format.maxBlobLength, ref.offset <= Format.maxBlobOffset else {
            throw StrataError(.corrupt, "blob reference announces \(ref.length) bytes at offset \(ref.offset)", path: file.path,
                              offset: Int64(exactly: ref.offset))
        }
        let total = Int(ref.length) + Format.blobEntryHeaderSize
        let offset = Int64(ref.offset)
        guard offset + Int64(total) <= (try file.size()) else {
            throw StrataError(.corrupt, "blob reference runs past the end of its file (\(ref.length) bytes at offset \(ref.offset))", path: file.path, offset: offset)
        }
        let bytes = try file.readExactly(total, at: offset)
        guard let header = BlobEntryHeader.decode(bytes[0..<Format.blobEntryHeaderSize]) else {
            throw StrataError(.corrupt, "blob entry header is damaged", path: file.path, offset: Int64(ref.offset))
        }
        guard header.storedLength == ref.length, header.dataChecksum == ref.checksum else {
            throw StrataError(.corrupt, "blob entry does not match its reference (length \(header.storedLength) vs \(ref.length))", path: file.path, offset: Int64(ref.offset))
        }
        let data = bytes[Format.blobEntryHeaderSize...]
        guard CRC32C.checksum(data) == ref.checksum else {
            throw StrataError(.corrupt, "blob data checksum mismatch", path: file.path, offset: Int64(ref.offset) + Int64(Format.blobEntryHeaderSize))
        }
        if header.flags & BlobFlags.lz4 != 0 {
            guard header.rawLength <= UInt64(Int32.max),
                  let raw = data.withUnsafeBytes({ LZ4.decompress($0, rawLength: Int(header.rawLength)) }) else {
                throw StrataError(.corrupt, "blob does not decompress to its recorded \(header.rawLength) bytes", path: file.path, offset: Int64(ref.offset))
            }
            return (raw, total)
        }
        return (Array(data), total)
    }

    /// Walks a blob file's entries by their headers and returns the end of the last
    /// whole entry: where a torn tail starts. Data checksums are not read here; every
    /// read and `verify` checks them.
    static func validEnd(of file: any StorageFile) throws -> Int64 {
        let size = try file.size()
        var position = Int64(Format.blobHeaderSize)
        while position + Int64(Format.blobEntryHeaderSize) <= size {
            let bytes = try file.readExactly(Format.blobEntryHeaderSize, at: position)
            guard let header = BlobEntryHeader.decode(bytes[...]) else { break }
            guard header.storedLength <= UInt64(size) else { break }
            let next = position + Int64(Format.blobEntryHeaderSize) + Int64(header.storedLength)
            guard next <= size else { break }
            position = next
        }
        return min(position, size)
    }
}
