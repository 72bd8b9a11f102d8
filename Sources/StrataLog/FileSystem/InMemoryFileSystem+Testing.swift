extension InMemoryFileSystem {
    /// Simulates a power loss: every file goes back to its durable bytes, every
    /// directory to its durable entries; open handles become invalid (their operations
    /// throw `.io` with EIO) and locks are released.
    package func crash() {
        crash(keepingUnsyncedBytes: 0)
    }

    /// Simulates a power loss in which up to `unsyncedBytes` of each file's unsynced
    /// tail reached the disk anyway: a torn append, which recovery must cut off.
    ///
    /// Only bytes past the end of a file's durable bytes are kept; unsynced overwrites
    /// inside them and unsynced directory changes are lost as in `crash()`.
    package func crash(keepingUnsyncedBytes unsyncedBytes: Int) {
        state.withLock { $0.crash(keepingUnsyncedBytes: unsyncedBytes) }
    }

    /// A new file system holding what a power loss at this instant would leave, while
    /// this one goes on: a test cuts the power under writers that keep running, with
    /// no write of theirs reaching the copy after the cut.
    package func crashedCopy() -> InMemoryFileSystem {
        copy { $0.crash(keepingUnsyncedBytes: 0) }
    }

    /// A new file system holding what a SIGKILL at this instant would leave, while this
    /// one goes on: every byte written so far, its unsynced bytes still unsynced (a
    /// ``crash()`` of the copy loses them), and no lock held.
    package func killedCopy() -> InMemoryFileSystem {
        copy { $0.kill() }
    }

    /// A new file system holding this one's state as `event` leaves it.
    private func copy(_ event: (inout InMemoryFileSystemState) -> Void) -> InMemoryFileSystem {
        var image = state.withLock { $0 }
        event(&image)
        let copy = InMemoryFileSystem()
        copy.state.withLock { $0 = image }
        return copy
    }

    /// Makes every file's bytes and every directory's entries durable, as if everything
    /// had been fsynced: the starting point of a fixture that a test then crashes.
    package func makeAllDurable() {
        state.withLock { $0.makeAllDurable() }
    }

    /// The current bytes of the file at `path`, or nil when there is no file there.
    package func bytes(of path: String) -> [UInt8]? {
        state.withLock { state in state.node(at: path).flatMap { state.files[$0]?.current } }
    }

    /// The bytes that a crash now would leave at `path` (through durable entries and
    /// durable file contents), or nil when a crash would leave no file there.
    package func durableBytes(of path: String) -> [UInt8]? {
        state.withLock { state in state.node(at: path, durable: true).flatMap { state.files[$0]?.durable } }
    }

    /// Replaces the bytes of the file at `path` (created when missing), durable at once
    /// together with its directory entry: a test editing the disk, e.g. to flip a byte.
    ///
    /// ```swift
    /// var bytes = try #require(fs.bytes(of: segment))
    /// bytes[100] ^= 0xFF
    /// try fs.setBytes(bytes, of: segment)
    /// ```
    ///
    /// - Throws: `.io` when the parent directory is missing or `path` is a directory.
    package func setBytes(_ bytes: [UInt8], of path: String) throws {
        try state.withLock { try $0.setBytes(bytes, of: path) }
    }

    /// The current size of the file at `path`, or nil when there is no file there.
    package func fileSize(_ path: String) -> Int? {
        bytes(of: path)?.count
    }

    /// The bytes of all files reachable from `/` now, e.g. to check that compaction
    /// reclaimed space.
    package var totalBytes: Int {
        state.withLock { $0.totalBytes }
    }

    /// How many handles are open (not closed, not killed by a crash); catches leaks.
    package var openFileCount: Int {
        state.withLock { $0.openHandleCount }
    }

    /// Whether a lock on `path` is held.
    package func isLocked(_ path: String) -> Bool {
        state.withLock { $0.isLocked(path) }
    }
}
