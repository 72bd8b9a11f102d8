/// How far a ``LogStore/backup(to:progress:)`` has come: reported after each chunk
/// copied and each file finished, on the thread that runs the backup.
///
/// A hard-linked file counts as copied, with its size, in one step.
///
/// ```swift
/// try store.backup(to: "/backups/Employees.strata") { progress in
///     print("\(progress.bytesCopied) of \(progress.bytesTotal) bytes")
/// }
/// ```
public struct BackupProgress: Sendable, Equatable {
    /// Bytes of the backup's files written or linked so far.
    public var bytesCopied: Int64
    /// Bytes of all the files the backup holds (it may grow by a little while the backup
    /// runs, when a derived index file was rewritten meanwhile).
    public var bytesTotal: Int64
    /// Files finished so far.
    public var filesCopied: Int
    /// Files the backup holds, its MANIFEST included.
    public var filesTotal: Int

    package init(bytesCopied: Int64, bytesTotal: Int64, filesCopied: Int, filesTotal: Int) {
        self.bytesCopied = bytesCopied
        self.bytesTotal = bytesTotal
        self.filesCopied = filesCopied
        self.filesTotal = filesTotal
    }
}
