import Hummingbird

/// What `POST /admin/backup` answers: where the copy is and what it holds.
public struct BackupSummary: Codable, Equatable, Sendable, ResponseEncodable {
    /// What to open: the Strata store's directory, or the SQLite database file.
    public var path: String
    /// Strata: the last transaction in the copy (every one up to it, none after).
    /// SQLite, which numbers no transactions: the number of todos in the copy.
    public var sequence: UInt64
    /// The files the copy is made of.
    public var files: Int
    /// The bytes of those files.
    public var bytes: Int64

    public init(path: String, sequence: UInt64, files: Int, bytes: Int64) {
        self.path = path
        self.sequence = sequence
        self.files = files
        self.bytes = bytes
    }
}
