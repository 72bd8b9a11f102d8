/// A format-1 sealed segment's index (FORMAT.md §12): for each key, its newest version
/// in the segment and where it sits, with its blob references and index terms. Format 2
/// replaced hint files by index files (§7); a format-1 store's hints are read once, to
/// build its index files when it is upgraded, and a missing or damaged one is not an
/// error — the segment is scanned instead.
struct HintFile {
    struct Entry: Equatable {
        var key: RecordKey
        var sequence: UInt64
        var isTombstone: Bool
        var location: RecordLocation
        var blobs: [BlobRef]
        var terms: [IndexTerm]
    }

    var segmentID: UInt32
    var storeID: [UInt8]
    var minSequence: UInt64
    var maxSequence: UInt64
    /// Bytes of every committed record in the segment, superseded ones included.
    var recordBytes: UInt64
    var entries: [Entry]

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 64 + entries.count * 40)
        w.bytes(Format.hintMagic)
        w.u32(Format.version)
        w.u32(segmentID)
        w.bytes(storeID)
        w.u64(minSequence)
        w.u64(maxSequence)
        w.u64(recordBytes)
        w.u64(UInt64(entries.count))
        for e in entries {
            w.u8(e.isTombstone ? RecordKind.tombstone.rawValue : RecordKind.put.rawValue)
            w.u64(e.key.rawValue)
            w.u64(e.sequence)
            w.u32(e.location.frameOffset)
            w.u32(e.location.frameLength)
            w.u32(e.location.recordOffset)
            w.u32(e.location.recordLength)
            w.u16(UInt16(e.blobs.count))
            w.u16(UInt16(e.terms.count))
            for blob in e.blobs { RecordCodec.encode(blob, into: &w) }
            for term in e.terms {
                w.u32(term.index)
                w.u16(UInt16(term.value.count))
                w.bytes(term.value)
            }
        }
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    static func decode(_ bytes: [UInt8], path: String) throws -> HintFile {
        guard bytes.count >= 4 else { throw StrataError(.corrupt, "hint file too short", path: path, offset: 0) }
        let body = bytes.count - 4
        var trailer = ByteReader(bytes, from: body, path: path)
        guard try trailer.u32() == CRC32C.checksum(bytes[0..<body]) else {
            throw StrataError(.corrupt, "hint file checksum mismatch", path: path, offset: Int64(body))
        }
        var r = ByteReader(bytes, to: body, path: path)
        guard try r.bytes(8, "magic") == Format.hintMagic else { throw r.corrupt("not a hint file") }
        let version = try r.u32("version")
        guard Format.readableVersions.contains(version) else { throw r.corrupt("unreadable hint version \(version)") }
        let segmentID = try r.u32("segment id")
        var hint = HintFile(segmentID: segmentID, storeID: try r.bytes(16, "store id"), minSequence: try r.u64(),
                            maxSequence: try r.u64(), recordBytes: try r.u64(), entries: [])
        let count = try r.u64("entry count")
        guard count <= UInt64(r.remaining / 33) else { throw r.corrupt("entry count \(count) exceeds the file") }
        hint.entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            let kind = try r.u8("kind")
            guard let recordKind = RecordKind(rawValue: kind) else { throw r.corrupt("unknown record kind \(kind)") }
            let key = RecordKey(try r.u64("key"))
            let sequence = try r.u64("sequence")
            let location = RecordLocation(segment: segmentID, frameOffset: try r.u32(), frameLength: try r.u32(),
                                          recordOffset: try r.u32(), recordLength: try r.u32())
            let blobCount = Int(try r.u16())
            let termCount = Int(try r.u16())
            var blobs: [BlobRef] = []
            for _ in 0..<blobCount { blobs.append(try RecordCodec.decodeBlob(&r)) }
            var terms: [IndexTerm] = []
            for _ in 0..<termCount {
                let index = try r.u32()
                let length = Int(try r.u16())
                terms.append(IndexTerm(index: index, value: try r.bytes(length)))
            }
            hint.entries.append(Entry(key: key, sequence: sequence, isTombstone: recordKind == .tombstone,
                                      location: location, blobs: blobs, terms: terms))
        }
        guard r.isAtEnd else { throw r.corrupt("unexpected bytes after the last entry") }
        return hint
    }
}
