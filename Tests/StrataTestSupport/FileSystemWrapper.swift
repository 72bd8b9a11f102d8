import StrataLog

/// A file system over another that changes only how its files open (`open`): every
/// other call is the base's.
public protocol FileSystemWrapper: FileSystem {
    var base: any FileSystem { get }
}

extension FileSystemWrapper {
    public func createDirectory(_ path: String) throws { try base.createDirectory(path) }
    public func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }
    public func exists(_ path: String) -> Bool { base.exists(path) }
    public func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    public func remove(_ path: String) throws { try base.remove(path) }
    public func rename(_ source: String, to destination: String) throws { try base.rename(source, to: destination) }
    public func link(_ source: String, to destination: String) throws { try base.link(source, to: destination) }
    public func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
    public func lock(_ path: String) throws -> any FileLock { try base.lock(path) }
}
