/// What a finished ``LogStore/backup(to:progress:)`` holds.
///
/// ```swift
/// let report = try store.backup(to: "/backups/Employees.strata")
/// print(report.sequence)  // the last transaction in the copy
/// ```
public struct BackupReport: Sendable, Equatable, CustomStringConvertible {
    /// The sequence of the last transaction the copy holds: every transaction up to it
    /// and none after it.
    public var sequence: UInt64
    /// The files the copy holds, its MANIFEST included.
    public var files: Int
    /// The bytes of those files.
    public var bytes: Int64
    /// How many of the files are hard links to the store's own (immutable) files rather
    /// than copies: the backup was on the store's file system.
    public var linkedFiles: Int

    package init(sequence: UInt64, files: Int, bytes: Int64, linkedFiles: Int) {
        self.sequence = sequence
        self.files = files
        self.bytes = bytes
        self.linkedFiles = linkedFiles
    }

    public var description: String {
        "backed up to sequence \(sequence): \(files) files, \(bytes) bytes (\(linkedFiles) hard-linked)"
    }
}
