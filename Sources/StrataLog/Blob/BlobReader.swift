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
        // Stored as it is: its raw length is its stored length. A cleared LZ4 flag on a
        // compressed entry would otherwise hand out the compressed bytes as the blob.
        guard header.rawLength == header.storedLength else {
            throw StrataError(.corrupt, "blob entry is marked uncompressed but records \(header.rawLength) raw bytes for \(header.storedLength) stored",
                              path: file.path, offset: Int64(ref.offset))
        }
        return (Array(data), total)
    }

    /// How much of a blob file `validEnd` reads at a time.
    static let headerWindow = 16 << 10

    /// Walks a blob file's entries by their headers and returns the end of the last
    /// whole entry: where a torn tail starts. Data checksums are not read here; every
    /// read and `verify` checks them.
    ///
    /// The headers are read through a window of `headerWindow` bytes, taken afresh
    /// only when the next header lies outside it: a read per header would make opening
    /// a store of many small blobs as many reads of 32 bytes. Past an entry of half a
    /// window or more, the next header is read alone: a window there is mostly the
    /// next entry's data (for large photos, a window per entry would read a good part
    /// of the active blob file at every open).
    static func validEnd(of file: any StorageFile) throws -> Int64 {
        let size = try file.size()
        let headerSize = Format.blobEntryHeaderSize
        var position = Int64(Format.blobHeaderSize)
        var window: [UInt8] = []
        var windowStart: Int64 = 0
        var lastLength: UInt64 = 0
        while position + Int64(headerSize) <= size {
            if position < windowStart || position + Int64(headerSize) > windowStart + Int64(window.count) {
                let want = lastLength >= UInt64(headerWindow / 2) ? headerSize : max(headerWindow, headerSize)
                window = try file.readExactly(Int(min(Int64(want), size - position)), at: position)
                windowStart = position
            }
            let at = Int(position - windowStart)
            guard let header = BlobEntryHeader.decode(window[at..<at + headerSize]) else { break }
            guard header.storedLength <= UInt64(size) else { break }
            lastLength = header.storedLength
            let next = position + Int64(Format.blobEntryHeaderSize) + Int64(header.storedLength)
            guard next <= size else { break }
            position = next
        }
        return min(position, size)
    }
}
