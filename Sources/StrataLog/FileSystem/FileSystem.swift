import SystemPackage

/// The seam through which the engine does all its I/O.
///
/// `POSIXFileSystem` is the real one. A conformance of your own can wrap it to fail
/// chosen operations with EIO or ENOSPC in a test of how a service copes with a failing
/// disk; the engine's own tests run it over in-memory and fault-injecting file systems
/// (package API), which can forget everything not fsynced, as a power loss does.
/// Paths are plain absolute strings; the engine builds every file name in one place
/// (`StorePaths`).
public protocol FileSystem: Sendable {
    /// Opens a file. `.create` creates it when missing (never truncates).
    func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile
    /// Creates a directory and any missing parents; succeeds if it exists.
    func createDirectory(_ path: String) throws
    /// The names (not paths) of the entries in a directory.
    func contentsOfDirectory(_ path: String) throws -> [String]
    /// Whether anything exists at `path`.
    func exists(_ path: String) -> Bool
    /// Whether `path` is a directory.
    func isDirectory(_ path: String) -> Bool
    /// Removes a file, or a directory with everything in it. Missing is not an error.
    func remove(_ path: String) throws
    /// Atomically renames, replacing the destination if it exists.
    func rename(_ source: String, to destination: String) throws
    /// Gives the file at `source` a second name, `destination` (a hard link, as `link(2)`):
    /// both names reach the same bytes. The new entry is durable after
    /// `syncDirectory(_:)` of its directory.
    ///
    /// - Throws: `.io` with the errno: `EXDEV` when the two paths are on different file
    ///   systems, `EPERM` when the file system makes no hard links (the default
    ///   implementation, for file systems that have none), `EEXIST` when `destination`
    ///   exists, `ENOENT` when `source` does not.
    func link(_ source: String, to destination: String) throws
    /// Makes a directory's entries (creates, renames, removes) durable.
    func syncDirectory(_ path: String) throws
    /// Takes an exclusive advisory lock on `path` (created if missing) without waiting.
    /// Throws `StrataError.Code.storeLocked` when another process holds it.
    func lock(_ path: String) throws -> any FileLock
}

/// How a file is opened.
public enum FileOpenMode: Sendable {
    case readOnly
    case readWrite
    /// Read-write, creating the file when missing.
    case create
}

/// An open file: positioned reads and writes only, so that readers on several
/// threads never share a file offset.
public protocol StorageFile: AnyObject, Sendable {
    var path: String { get }
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read
    /// (fewer only at end of file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// Writes all of `bytes` at `offset`, or throws. A short write is retried until
    /// complete or an error occurs.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws
    /// The file's current size in bytes.
    func size() throws -> Int64
    /// Cuts or extends the file to `size` bytes.
    func truncate(to size: Int64) throws
    /// Makes the file's data durable (fsync).
    func sync() throws
    /// Writes the file's data in `range` to the disk now and waits for it, without the
    /// metadata an fsync commits: a long writer paces its dirty pages this way, so
    /// that another file's fsync does not have to write them out too. Promises no
    /// durability (only `sync()` does); a file system without it does nothing.
    func writeBack(_ range: Range<Int64>) throws
    /// Closes the file; further calls throw.
    func close() throws
}

/// A held lock; released by `unlock()` or when the process ends.
public protocol FileLock: AnyObject, Sendable {
    func unlock()
}

extension FileSystem {
    /// No hard links: throws `.io` with `EPERM`, which tells a caller to copy instead
    /// (what `link(2)` reports on a file system without links).
    public func link(_ source: String, to destination: String) throws {
        throw StrataError.fromErrno(.notPermitted, "cannot link to \(destination): this file system makes no hard links", path: source)
    }
}

extension StorageFile {
    public func writeBack(_ range: Range<Int64>) throws {}

    /// Reads exactly `count` bytes at `offset`, throwing `.corrupt` when the file ends first.
    package func readExactly(_ count: Int, at offset: Int64) throws -> [UInt8] {
        // Read into uninitialised storage: zeroing a buffer the read then overwrites
        // would add a pass over every byte to each random lookup.
        var got = 0
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            got = try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            initialized = got
        }
        guard got == count else {
            throw StrataError(.corrupt, "file ends after \(got) of \(count) bytes", path: path, offset: offset + Int64(got))
        }
        return bytes
    }

    /// Writes a byte array at `offset`.
    package func write(_ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }
}
