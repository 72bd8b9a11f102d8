/// Where a blob's bytes live in the blob area (FORMAT.md §5.3): blob file, the offset
/// of its entry, the stored length and the stored bytes' checksum. Records carry
/// these beside their value, so that compaction can move blobs without understanding
/// values, and migration can carry a blob into a new record without copying it.
public struct BlobRef: Hashable, Sendable, CustomStringConvertible {
    // The two 32-bit fields side by side: 24 bytes, not 28 with padding, and a
    // decoded record's every field (`FieldValue`, sized by its blob case) 40, not 48.
    public var file: UInt32
    public var checksum: UInt32
    public var offset: UInt64
    public var length: UInt64

    public init(file: UInt32, offset: UInt64, length: UInt64, checksum: UInt32) {
        self.file = file
        self.offset = offset
        self.length = length
        self.checksum = checksum
    }

    public var description: String { "blob(\(file)@\(offset), \(length) bytes)" }

    static let encodedSize = 24
}
