#if Postgres
import StrataLog

/// How keys and blob references are kept in PostgreSQL's columns.
enum PostgresCoding {
    /// A key as a `bigint` that sorts as the key does: PostgreSQL compares bigints
    /// signed, so the top bit is flipped (the history's keys, tag 0xFFFF, would
    /// otherwise sort first).
    static func column(_ key: RecordKey) -> Int64 { Int64(bitPattern: key.rawValue ^ (1 << 63)) }

    static func key(_ column: Int64) -> RecordKey { RecordKey(UInt64(bitPattern: column) ^ (1 << 63)) }

    /// A record's blob references: 24 bytes each, little-endian (file, checksum,
    /// offset, length). A blob of this store type is a row of the blobs table: its
    /// `offset` holds the row's id, `file` is 0.
    static func encode(_ blobs: [BlobRef]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(blobs.count * 24)
        for blob in blobs {
            withUnsafeBytes(of: blob.file.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: blob.checksum.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: blob.offset.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: blob.length.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    static func decodeBlobs(_ bytes: [UInt8], key: RecordKey) throws -> [BlobRef] {
        guard bytes.count % 24 == 0 else {
            throw StrataError(.corrupt, "the blob references of record \(key) are \(bytes.count) bytes, not a multiple of 24")
        }
        var blobs: [BlobRef] = []
        blobs.reserveCapacity(bytes.count / 24)
        bytes.withUnsafeBytes { raw in
            var at = 0
            while at < raw.count {
                blobs.append(BlobRef(file: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)),
                                     offset: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)),
                                     length: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)),
                                     checksum: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))))
                at += 24
            }
        }
        return blobs
    }

    /// The smallest byte string greater than every string starting with `prefix`,
    /// nil when there is none (the prefix is empty or all 0xFF).
    static func successor(ofPrefix prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}
#endif
