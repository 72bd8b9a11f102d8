/// Encodes and decodes one record inside a records block (FORMAT.md §3.3):
///
///     kind u8 · key u64 · sequence u64 · valueLength u32 · blobCount u16 · termCount u16
///     value · blobs (file u32, offset u64, length u64, checksum u32) · terms (index u32, length u16, bytes)
enum RecordCodec {
    static let headerSize = 25

    static func encodedSize(value: Int, blobs: Int, terms: [IndexTerm]) -> Int {
        headerSize + value + blobs * BlobRef.encodedSize + terms.reduce(0) { $0 + 6 + $1.value.count }
    }

    /// `record`'s encoded size, once it is known to fit a frame and its counts and term
    /// lengths their fields (FORMAT.md §3.3).
    ///
    /// - Throws: `.invalidArgument` otherwise: a writer refuses the record.
    ///
    /// Inlined: a record handed to a call is copied out of a commit's buffer, its
    /// arrays retained and released.
    @inline(__always)
    static func checkedSize(of record: Record, path: String? = nil) throws -> Int {
        let size = encodedSize(value: record.value.count, blobs: record.blobs.count, terms: record.terms)
        guard size + 4 <= Format.maxFramePayload, record.blobs.count <= Int(UInt16.max), record.terms.count <= Int(UInt16.max),
              record.terms.allSatisfy({ $0.value.count <= Int(UInt16.max) }) else {
            throw StrataError(.invalidArgument, "record \(record.key) is \(size) bytes, more than a frame holds (\(Format.maxFramePayload)); store large values as blobs", path: path)
        }
        return size
    }

    static func encode(_ record: Record, sequence: UInt64, into writer: inout ByteWriter) {
        writer.fixed(headerSize) { h in
            h.storeBytes(of: record.isTombstone ? RecordKind.tombstone.rawValue : RecordKind.put.rawValue, toByteOffset: 0, as: UInt8.self)
            h.storeBytes(of: record.key.rawValue.littleEndian, toByteOffset: 1, as: UInt64.self)
            h.storeBytes(of: sequence.littleEndian, toByteOffset: 9, as: UInt64.self)
            h.storeBytes(of: UInt32(record.value.count).littleEndian, toByteOffset: 17, as: UInt32.self)
            h.storeBytes(of: UInt16(record.blobs.count).littleEndian, toByteOffset: 21, as: UInt16.self)
            h.storeBytes(of: UInt16(record.terms.count).littleEndian, toByteOffset: 23, as: UInt16.self)
        }
        writer.bytes(record.value)
        for blob in record.blobs { encode(blob, into: &writer) }
        for term in record.terms {
            writer.fixed(6) { h in
                h.storeBytes(of: term.index.littleEndian, toByteOffset: 0, as: UInt32.self)
                h.storeBytes(of: UInt16(term.value.count).littleEndian, toByteOffset: 4, as: UInt16.self)
            }
            writer.bytes(term.value)
        }
    }

    static func encode(_ blob: BlobRef, into writer: inout ByteWriter) {
        writer.u32(blob.file)
        writer.u64(blob.offset)
        writer.u64(blob.length)
        writer.u32(blob.checksum)
    }

    /// Decodes a blob reference, refusing an offset or length no writer produces
    /// (FORMAT.md §5.3): every later use adds them as `Int64`.
    static func decodeBlob(_ reader: inout ByteReader) throws -> BlobRef {
        let ref = BlobRef(file: try reader.u32("blob file"), offset: try reader.u64("blob offset"),
                          length: try reader.u64("blob length"), checksum: try reader.u32("blob checksum"))
        guard ref.offset <= Format.maxBlobOffset, ref.length <= Format.maxBlobLength else {
            throw reader.corrupt("blob reference past any blob file (offset \(ref.offset), length \(ref.length))")
        }
        return ref
    }

    /// What a record's header says, read without copying its value, blobs or terms.
    struct Header {
        var isTombstone: Bool
        var key: RecordKey
        var sequence: UInt64
        var valueLength: Int
        var blobCount: Int
        var termCount: Int
    }

    /// Reads the record starting at the reader's position as ``decode(_:)`` does —
    /// the same checks, so the same bytes are refused — and keeps only its header:
    /// compaction judges every record and copies the bytes of those it keeps, and a
    /// decoded record is an allocation for its value and one per term.
    static func skim(_ reader: inout ByteReader) throws -> Header {
        let header = try readHeader(&reader)
        try reader.skip(header.valueLength, "record value")
        for _ in 0..<header.blobCount { _ = try decodeBlob(&reader) }
        for _ in 0..<header.termCount {
            _ = try reader.u32("term index")
            try reader.skip(Int(try reader.u16("term length")), "term value")
        }
        return header
    }

    /// Decodes the record starting at the reader's position.
    static func decode(_ reader: inout ByteReader) throws -> Record {
        let header = try readHeader(&reader)
        let value = try reader.bytes(header.valueLength, "record value")
        var blobs: [BlobRef] = []
        blobs.reserveCapacity(header.blobCount)
        for _ in 0..<header.blobCount { blobs.append(try decodeBlob(&reader)) }
        var terms: [IndexTerm] = []
        terms.reserveCapacity(header.termCount)
        for _ in 0..<header.termCount {
            let index = try reader.u32("term index")
            let length = Int(try reader.u16("term length"))
            terms.append(IndexTerm(index: index, value: try reader.bytes(length, "term value")))
        }
        return Record(key: header.key, sequence: header.sequence, isTombstone: header.isTombstone, value: value, blobs: blobs, terms: terms)
    }

    /// The record header at the reader's position (its first 25 bytes), its kind checked.
    /// Inlined into both readers: compaction skims every record it scans.
    @inline(__always)
    private static func readHeader(_ reader: inout ByteReader) throws -> Header {
        let kindByte = try reader.u8("record kind")
        guard let kind = RecordKind(rawValue: kindByte) else {
            throw reader.corrupt("unknown record kind \(kindByte)")
        }
        return Header(isTombstone: kind == .tombstone, key: RecordKey(try reader.u64("record key")), sequence: try reader.u64("record sequence"),
                      valueLength: Int(try reader.u32("value length")), blobCount: Int(try reader.u16("blob count")), termCount: Int(try reader.u16("term count")))
    }
}
