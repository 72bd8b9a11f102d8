import Synchronization

/// A file system in memory that forgets what a power loss would, for tests.
///
/// Durability is modelled the way LevelDB's fault-injection test env models it:
///
/// - Each file has its current bytes and its durable bytes; `StorageFile.sync()` makes
///   the current bytes durable.
/// - Each directory has its current entries and its durable entries; creates, renames
///   and removes change only the current ones until `syncDirectory(_:)` of that
///   directory. A file created and fsynced in a directory that was never synced is lost
///   in a crash, as it can be on ext4. The same holds for `createDirectory(_:)`: a new
///   directory needs its parent synced.
/// - `crash()` is a power loss: every file goes back to its durable bytes, every
///   directory to its durable entries, open handles die (operations on them throw
///   `.io` with EIO) and locks are released.
///
/// Paths are absolute (a relative path is taken from `/`); the root always exists.
/// Files are inodes, not paths, so a handle keeps working after its file is unlinked or
/// renamed, as on POSIX.
///
/// ```swift
/// let fs = InMemoryFileSystem()
/// try fs.createDirectory("/db")
/// let file = try fs.open("/db/a.seg", mode: .create)
/// try file.write([1, 2, 3], at: 0)
/// try file.sync()                 // the bytes are durable…
/// fs.crash()                      // …but the entry was never synced: the file is gone
/// #expect(fs.exists("/db/a.seg") == false)
/// ```
///
/// Helpers for tests edit and inspect the "disk" directly: `bytes(of:)`,
/// `durableBytes(of:)`, `setBytes(_:of:)`, `fileSize(_:)`, `totalBytes`,
/// `makeAllDurable()`, `openFileCount`.
///
/// ## Topics
/// - ``crash()``
/// - ``crash(keepingUnsyncedBytes:)``
/// - ``makeAllDurable()``
/// - ``bytes(of:)``
/// - ``durableBytes(of:)``
/// - ``setBytes(_:of:)``
package final class InMemoryFileSystem: FileSystem {
    let state = Locked(InMemoryFileSystemState())

    /// An empty file system: only the root directory `/`, which is durable.
    package init() {}

    package func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        let (handle, generation) = try state.withLock { state in
            let node = try state.openFile(path, create: mode == .create)
            return (state.openHandle(to: node), state.generation)
        }
        return InMemoryFile(
            path: path, fileSystem: self, handle: handle, generation: generation, isWritable: mode != .readOnly)
    }

    package func createDirectory(_ path: String) throws {
        try state.withLock { try $0.createDirectory(path) }
    }

    package func contentsOfDirectory(_ path: String) throws -> [String] {
        try state.withLock { try $0.contentsOfDirectory(path) }
    }

    package func exists(_ path: String) -> Bool {
        state.withLock { $0.node(at: path) != nil }
    }

    package func isDirectory(_ path: String) -> Bool {
        state.withLock { state in state.node(at: path).map { state.directories[$0] != nil } ?? false }
    }

    package func remove(_ path: String) throws {
        try state.withLock { try $0.remove(path) }
    }

    package func rename(_ source: String, to destination: String) throws {
        try state.withLock { try $0.rename(source, to: destination) }
    }

    /// A second entry for the same node: both names share the bytes, as on POSIX.
    package func link(_ source: String, to destination: String) throws {
        try state.withLock { try $0.link(source, to: destination) }
    }

    package func syncDirectory(_ path: String) throws {
        try state.withLock { try $0.syncDirectory(path) }
    }

    /// Exclusive per path within this instance: a second lock on the same path throws
    /// `.storeLocked` until the first is unlocked (or a crash releases it). Creates the
    /// lock file when missing, as `flock` on a fresh LOCK file does.
    package func lock(_ path: String) throws -> any FileLock {
        let token = try state.withLock { try $0.lock(path) }
        return InMemoryLock(path: path, token: token, fileSystem: self)
    }
}

extension InMemoryFileSystem: ReaderLocking {
    package func lockForReading(_ path: String) throws -> any FileLock {
        let token = try state.withLock { try $0.lockForReading(path) }
        return InMemoryLock(path: path, token: token, isReader: true, fileSystem: self)
    }

    package func readersHold(_ path: String) -> Bool {
        state.withLock { $0.readersHold(path) }
    }
}
