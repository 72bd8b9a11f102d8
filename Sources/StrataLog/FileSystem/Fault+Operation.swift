extension Fault {
    /// The kinds of file-system operation that a `FaultInjectingFileSystem` counts and
    /// can fail: one per throwing method of `FileSystem` and `StorageFile`.
    package enum Operation: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// `open` with `.readOnly` or `.readWrite`.
        case open
        /// `open` with `.create` (counted apart from `open`, so "the 2nd create" is exact).
        case create
        case read
        case write
        case size
        case truncate
        /// `StorageFile.sync()`: fsync of a file.
        case sync
        /// `StorageFile.writeBack(_:)`: pages of a range written out ahead of an fsync.
        case writeBack
        case close
        case createDirectory
        case listDirectory
        case remove
        case rename
        /// `FileSystem.link(_:to:)`: a hard link (matched on its source or destination).
        case link
        /// `FileSystem.syncDirectory(_:)`: fsync of a directory.
        case syncDirectory
        case lock

        package var description: String { rawValue }
    }
}
