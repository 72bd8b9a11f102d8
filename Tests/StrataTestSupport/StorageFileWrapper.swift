import StrataLog

/// A file over another that changes only some of its calls (a test's slow fsync, a
/// counted read): every call it does not implement is the base's, write-back included.
public protocol StorageFileWrapper: StorageFile {
    var base: any StorageFile { get }
}

extension StorageFileWrapper {
    public var path: String { base.path }
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int { try base.read(into: buffer, at: offset) }
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws { try base.write(bytes, at: offset) }
    public func size() throws -> Int64 { try base.size() }
    public func truncate(to size: Int64) throws { try base.truncate(to: size) }
    public func sync() throws { try base.sync() }
    public func writeBack(_ range: Range<Int64>) throws { try base.writeBack(range) }
    public func close() throws { try base.close() }
}
