/// The records of one transaction that a compaction step keeps, held as the bytes
/// they are written with (FORMAT.md §3.3): copied from the block they were read from
/// when nothing about them changes, encoded anew when the step rewrote them (a record
/// in an older layout, a blob moved out of a collected file). A record copied is never
/// decoded: its value, blobs and terms stay bytes until the output's index reads them.
struct KeptRecords {
    struct Kept {
        var header: RecordCodec.Header
        /// Where the record's bytes lie in `bytes`.
        var start: Int
        var length: Int
        /// A superseded version kept for a retention: its bytes are not live.
        var retained: Bool
    }

    private(set) var bytes: [UInt8] = []
    private(set) var records: [Kept] = []

    var count: Int { records.count }
    /// The sequence of the first record held.
    var sequence: UInt64? { records.first?.header.sequence }
    /// Bytes of the records held (and of those dropped since the last `removeAll`).
    var byteCount: Int { bytes.count }
    var isEmpty: Bool { records.isEmpty }

    /// Keeps a record whose bytes (`header` read from them) are copied unchanged.
    mutating func append(copying record: UnsafeRawBufferPointer, header: RecordCodec.Header, retained: Bool) {
        records.append(Kept(header: header, start: bytes.count, length: record.count, retained: retained))
        bytes.append(contentsOf: record)
    }

    /// Keeps a record decoded (and perhaps rewritten), encoded with its own sequence.
    ///
    /// - Throws: `.invalidArgument` for a record a frame cannot hold (FORMAT.md §3.3),
    ///   as a commit refuses it.
    mutating func append(_ record: Record, retained: Bool) throws {
        var writer = ByteWriter(capacity: try RecordCodec.checkedSize(of: record))
        RecordCodec.encode(record, sequence: record.sequence, into: &writer)
        let header = RecordCodec.Header(isTombstone: record.isTombstone, key: record.key, sequence: record.sequence, valueLength: record.value.count,
                                        blobCount: record.blobs.count, termCount: record.terms.count)
        records.append(Kept(header: header, start: bytes.count, length: writer.count, retained: retained))
        bytes.append(contentsOf: writer.bytes)
    }

    /// Drops the records at `positions` (their bytes stay, unreferenced, until `removeAll`).
    mutating func remove(_ positions: Set<Int>) {
        guard !positions.isEmpty else { return }
        records = records.indices.filter { !positions.contains($0) }.map { records[$0] }
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
    }
}

extension RecordCodec {
    /// The blob references of a record whose bytes (from its first byte) were checked
    /// when they were read (``skim(_:)``) or written by ``encode(_:sequence:into:)``.
    static func blobs(of record: UnsafeRawBufferPointer, header: Header) -> [BlobRef] {
        guard header.blobCount > 0 else { return [] }
        var blobs: [BlobRef] = []
        blobs.reserveCapacity(header.blobCount)
        var at = headerSize + header.valueLength
        for _ in 0..<header.blobCount {
            blobs.append(BlobRef(file: UInt32(littleEndian: record.loadUnaligned(fromByteOffset: at, as: UInt32.self)),
                                 offset: UInt64(littleEndian: record.loadUnaligned(fromByteOffset: at + 4, as: UInt64.self)),
                                 length: UInt64(littleEndian: record.loadUnaligned(fromByteOffset: at + 12, as: UInt64.self)),
                                 checksum: UInt32(littleEndian: record.loadUnaligned(fromByteOffset: at + 20, as: UInt32.self))))
            at += BlobRef.encodedSize
        }
        return blobs
    }

    /// Calls `body` with each term of such a record: its index number and its value's bytes.
    static func forEachTerm(of record: UnsafeRawBufferPointer, header: Header, _ body: (UInt32, UnsafeRawBufferPointer) -> Void) {
        var at = headerSize + header.valueLength + header.blobCount * BlobRef.encodedSize
        for _ in 0..<header.termCount {
            let index = UInt32(littleEndian: record.loadUnaligned(fromByteOffset: at, as: UInt32.self))
            let length = Int(UInt16(littleEndian: record.loadUnaligned(fromByteOffset: at + 4, as: UInt16.self)))
            body(index, UnsafeRawBufferPointer(rebasing: record[at + 6..<at + 6 + length]))
            at += 6 + length
        }
    }
}
