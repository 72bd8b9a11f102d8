import Foundation
import StrataLog
import Synchronization

/// The real file system, except that once armed, the nth write to a file whose path
/// contains a given part throws `.io` (EIO) instead of reaching the file: how the
/// recovery figure stops a chunked commit just before its seal frame, through the
/// engine's public file-system seam.
final class FailingWriteFileSystem: FileSystem {
    private struct Plan {
        var pathPart = ""
        var failing = 0
        var seen = 0
    }

    private let base = POSIXFileSystem()
    private let plan = Mutex(Plan())

    /// Fails the `n`th write, counted from now, to a path containing `pathPart`.
    func failWrite(_ n: Int, toPathsContaining pathPart: String) {
        plan.withLock { $0 = Plan(pathPart: pathPart, failing: n) }
    }

    /// Counts a write to `path`; true for the one that is to fail.
    fileprivate func countWrite(to path: String) -> Bool {
        plan.withLock { plan in
            guard plan.failing > 0, path.contains(plan.pathPart) else { return false }
            plan.seen += 1
            return plan.seen == plan.failing
        }
    }

    func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        FailingWriteFile(try base.open(path, mode: mode), fileSystem: self)
    }
    func createDirectory(_ path: String) throws { try base.createDirectory(path) }
    func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }
    func exists(_ path: String) -> Bool { base.exists(path) }
    func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    func remove(_ path: String) throws { try base.remove(path) }
    func rename(_ source: String, to destination: String) throws { try base.rename(source, to: destination) }
    func link(_ source: String, to destination: String) throws { try base.link(source, to: destination) }
    func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
    func lock(_ path: String) throws -> any FileLock { try base.lock(path) }
}

private final class FailingWriteFile: StorageFile {
    private let file: any StorageFile
    private let fileSystem: FailingWriteFileSystem

    init(_ file: any StorageFile, fileSystem: FailingWriteFileSystem) {
        self.file = file
        self.fileSystem = fileSystem
    }

    var path: String { file.path }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int { try file.read(into: buffer, at: offset) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        if fileSystem.countWrite(to: file.path) {
            throw StrataError(.io, "injected write failure", path: file.path, errno: EIO)
        }
        try file.write(bytes, at: offset)
    }
    func size() throws -> Int64 { try file.size() }
    func truncate(to size: Int64) throws { try file.truncate(to: size) }
    func sync() throws { try file.sync() }
    func close() throws { try file.close() }
}
