import SystemPackage

/// An open file of an `InMemoryFileSystem`. It names a handle in the file system's
/// state rather than holding bytes, so that closing it, or a crash, is seen by every
/// thread at once; all its properties are constants, hence `Sendable`.
final class InMemoryFile: StorageFile, LinkCounting {
    let path: String
    private let fileSystem: InMemoryFileSystem
    private let handle: Int
    /// The crash generation the handle was opened in: tells "closed" from "crashed".
    private let generation: Int
    private let isWritable: Bool

    init(path: String, fileSystem: InMemoryFileSystem, handle: Int, generation: Int, isWritable: Bool) {
        self.path = path
        self.fileSystem = fileSystem
        self.handle = handle
        self.generation = generation
        self.isWritable = isWritable
    }

    deinit {
        // A dropped handle closes, as POSIXFile's does, so openFileCount does not leak.
        let handle = handle
        fileSystem.state.withLock { $0.closeHandle(handle) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try checkOffset(offset)
        return try withContents { contents in
            let start = Int(offset)
            guard start < contents.current.count else { return 0 }
            let count = min(buffer.count, contents.current.count - start)
            contents.current.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + count)]))
            }
            return count
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        try checkOffset(offset)
        try checkWritable()
        try withContents { $0.write(bytes, at: Int(offset)) }
    }

    func size() throws -> Int64 {
        try withContents { Int64($0.current.count) }
    }

    func truncate(to size: Int64) throws {
        try checkOffset(size)
        try checkWritable()
        try withContents { $0.truncate(to: Int(size)) }
    }

    func sync() throws {
        try withContents { $0.sync() }
    }

    func linkCount() -> Int? {
        let (handle, generation) = (handle, generation)
        return fileSystem.state.withLock { $0.linkCount(handle: handle, generation: generation) }
    }

    func close() throws {
        let handle = handle
        fileSystem.state.withLock { $0.closeHandle(handle) }
    }

    private func withContents<R: Sendable>(_ body: (inout InMemoryFileContents) throws -> R) throws -> R {
        let (handle, generation, path) = (handle, generation, path)
        return try fileSystem.state.withLock { state in
            try state.withFile(handle: handle, generation: generation, path: path, body)
        }
    }

    private func checkOffset(_ offset: Int64) throws {
        // An upper bound keeps a wild offset from asking for terabytes of memory.
        guard offset >= 0, offset < 1 << 40 else {
            throw StrataError.fromErrno(.invalidArgument, "offset out of range", path: path, offset: offset)
        }
    }

    private func checkWritable() throws {
        guard isWritable else {
            throw StrataError.fromErrno(.badFileDescriptor, "the file is open read-only", path: path)
        }
    }
}
