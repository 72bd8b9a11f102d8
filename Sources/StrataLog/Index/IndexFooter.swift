/// The fixed-size end of an index file (FORMAT.md §7.1): which segment and store it
/// belongs to, what it holds, and where its fence and filter blocks are. Opening a
/// store reads only this from each index file.
struct IndexFooter: Equatable, Sendable {
    static let size = 160

    struct Handle: Equatable, Sendable {
        var offset: UInt64
        var length: UInt64
    }

    var segmentID: UInt32
    var storeID: [UInt8]
    var minKey: UInt64
    var maxKey: UInt64
    /// Of the segment's committed transactions (0 and 0 when it has none).
    var minSequence: UInt64
    var maxSequence: UInt64
    /// Bytes of every committed record in the segment, superseded ones included.
    var recordBytes: UInt64
    var entryCount: UInt64
    var liveCount: UInt64
    var tombstoneCount: UInt64
    var termCount: UInt64
    var dataFence: Handle
    var termFence: Handle
    var filter: Handle
    /// The segment file's length when it was sealed (the end of its seal frame): open
    /// compares it with the file, so a segment cut short or grown is never described
    /// by an index file written for it before (FORMAT.md §7.1).
    var segmentLength: UInt32 = 0
    /// The format version the file was written with (2 or 3: the bytes are the same).
    var version: UInt32 = Format.version

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.size)
        w.bytes(Format.indexMagic)
        w.u32(version)
        w.u32(segmentID)
        w.bytes(storeID)
        for value in [minKey, maxKey, minSequence, maxSequence, recordBytes, entryCount, liveCount, tombstoneCount, termCount,
                      dataFence.offset, dataFence.length, termFence.offset, termFence.length, filter.offset, filter.length] {
            w.u64(value)
        }
        w.u32(segmentLength)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Parses and checks a footer read from the last `size` bytes of a file of
    /// `fileSize` bytes: every handle must lie inside the file before the footer.
    static func decode(_ bytes: [UInt8], fileSize: Int64, path: String) throws -> IndexFooter {
        let base = fileSize - Int64(size)
        guard bytes.count == size else { throw StrataError(.corrupt, "index file too short for its footer", path: path, offset: 0) }
        var trailer = ByteReader(bytes, from: size - 4, path: path, baseOffset: base)
        guard try trailer.u32() == CRC32C.checksum(bytes[0..<(size - 4)]) else {
            throw StrataError(.corrupt, "index footer checksum mismatch", path: path, offset: base + Int64(size - 4))
        }
        var r = ByteReader(bytes, to: size - 4, path: path, baseOffset: base)
        guard try r.bytes(8, "magic") == Format.indexMagic else { throw r.corrupt("not an index file") }
        let version = try r.u32("version")
        guard Format.readableIndexVersions.contains(version) else { throw r.corrupt("unreadable index file version \(version)") }
        var f = IndexFooter(segmentID: try r.u32("segment id"), storeID: try r.bytes(16, "store id"),
                            minKey: 0, maxKey: 0, minSequence: 0, maxSequence: 0, recordBytes: 0, entryCount: 0, liveCount: 0,
                            tombstoneCount: 0, termCount: 0, dataFence: Handle(offset: 0, length: 0),
                            termFence: Handle(offset: 0, length: 0), filter: Handle(offset: 0, length: 0))
        f.version = version
        f.minKey = try r.u64(); f.maxKey = try r.u64()
        f.minSequence = try r.u64(); f.maxSequence = try r.u64()
        f.recordBytes = try r.u64(); f.entryCount = try r.u64(); f.liveCount = try r.u64()
        f.tombstoneCount = try r.u64(); f.termCount = try r.u64()
        f.dataFence = Handle(offset: try r.u64(), length: try r.u64())
        f.termFence = Handle(offset: try r.u64(), length: try r.u64())
        f.filter = Handle(offset: try r.u64(), length: try r.u64())
        f.segmentLength = try r.u32("segment length")
        let body = UInt64(max(0, base))
        for (name, handle, minimum) in [("data fence", f.dataFence, 8), ("term fence", f.termFence, 8), ("filter", f.filter, 13)] as [(String, Handle, UInt64)] {
            guard handle.length >= minimum, handle.offset <= body, handle.length <= body - handle.offset else {
                throw StrataError(.corrupt, "index footer's \(name) handle (\(handle.offset), \(handle.length)) lies outside the file", path: path, offset: base)
            }
        }
        guard f.liveCount <= f.entryCount, f.tombstoneCount == f.entryCount - f.liveCount, f.entryCount <= body / 35,
              f.termCount <= body / 22, f.minKey <= f.maxKey || f.entryCount == 0, f.minSequence <= f.maxSequence else {
            throw StrataError(.corrupt, "index footer's counts or ranges are inconsistent", path: path, offset: base)
        }
        return f
    }
}
