/// Read-only stores register on the store's LOCK file, so that the writer can tell
/// whether a store other than itself (another process's, or a second one in this
/// process) may be reading files a compaction retired: its reclaimer cuts a retired
/// file only when no reader is registered as it starts (FORMAT.md §1). The engine's own
/// file systems have it; the engine reaches it through ``FileSystem/readerRegistry``.
package protocol ReaderLocking {
    /// Registers a reader of the store whose LOCK file is `path` until the returned lock
    /// is released (or its process ends). Tries for a bounded time while a writer holds it.
    func lockForReading(_ path: String) throws -> any FileLock
    /// Whether a reader is registered on `path` now; true when it cannot tell.
    func readersHold(_ path: String) -> Bool
}

extension FileSystem {
    /// Where this file system's readers register and its writer looks for them: itself
    /// when it can, else the disk under it, through `POSIXFileSystem` on the same path
    /// (a path not on the disk registers no reader, and its writer assumes some).
    package var readerRegistry: any ReaderLocking {
        (self as? ReaderLocking) ?? POSIXFileSystem()
    }
}
