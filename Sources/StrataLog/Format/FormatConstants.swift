/// The numbers written to disk, in one place. docs/FORMAT.md is the specification;
/// every constant here cites its section there. Written to disk: never renumber,
/// never reuse a retired value.
package enum Format {
    /// The on-disk format version this release writes (FORMAT.md §1). Readers accept
    /// every version in `readableVersions`.
    package static let version: UInt32 = 5
    /// Versions this release can open (FORMAT.md §1).
    package static let readableVersions: ClosedRange<UInt32> = 1...5
    /// Index files exist since format 2; their bytes did not change in formats 3 to 5.
    static let readableIndexVersions: ClosedRange<UInt32> = 2...5

    // §3 Segment files
    static let segmentMagic: [UInt8] = Array("STRATSEG".utf8)
    static let segmentHeaderSize = 48
    // §3.2 Frames
    static let frameHeaderSize = 12
    /// Frames are at most this large (stored payload), so a damaged length field cannot
    /// make the reader allocate gigabytes.
    static let maxFramePayload = 64 << 20

    // §5 Blob files
    static let blobMagic: [UInt8] = Array("STRATBLB".utf8)
    static let blobHeaderSize = 48
    static let blobEntryHeaderSize = 32
    static let blobEntryMagic: UInt32 = 0x424C_4F42 // "BLOB" little-endian as written
    /// The largest blob a reference may name (1 TiB), and the largest offset (2^62):
    /// a reference beyond either is damage (FORMAT.md §5.3), so that offset, header and
    /// length always add up within `Int64`.
    static let maxBlobLength: UInt64 = 1 << 40
    static let maxBlobOffset: UInt64 = 1 << 62

    // §6 Manifest
    static let manifestMagic: [UInt8] = Array("STRATMAN".utf8)

    // §7 Index files (format 2)
    static let indexMagic: [UInt8] = Array("STRATIDX".utf8)

    // §12 Hint files (format 1, read only to upgrade a store)
    static let hintMagic: [UInt8] = Array("STRATHNT".utf8)
}

/// The type byte of a frame (FORMAT.md §3.2). Written to disk; never renumber.
enum FrameType: UInt8 {
    // 0 is reserved: zero-filled space is never a valid frame.
    /// A block of records belonging to one transaction.
    case records = 1
    /// The end of a transaction: its records become visible.
    case commit = 2
    /// The last frame of a sealed segment.
    case seal = 3
}

/// Frame flag bits (FORMAT.md §3.2). Written to disk; never renumber.
enum FrameFlags {
    /// The payload is `rawLength: u32` followed by an LZ4 block.
    static let lz4: UInt8 = 1 << 0
}

/// The kind byte of a record (FORMAT.md §3.3). Written to disk; never renumber.
enum RecordKind: UInt8 {
    // 0 is reserved.
    case put = 1
    case tombstone = 2
}

/// Blob entry flag bits (FORMAT.md §5.2). Written to disk; never renumber.
enum BlobFlags {
    static let lz4: UInt32 = 1 << 0
}

/// Segment and blob-file states in the manifest (FORMAT.md §6). Written to disk; never renumber.
enum FileState: UInt8 {
    // 0 is reserved.
    case active = 1
    case sealed = 2
}
