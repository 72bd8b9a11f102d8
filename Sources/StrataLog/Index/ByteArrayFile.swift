/// A read-only file held in memory: the index file of a segment that a read-only open
/// had to rebuild (it may not write `index/`), or of a format-1 store opened read-only.
final class ByteArrayFile: StorageFile {
    let path: String
    let bytes: [UInt8]

    init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard offset >= 0, offset <= Int64(bytes.count) else { return 0 }
        let start = Int(offset), count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { source in
            if count > 0, let base = source.baseAddress { buffer.baseAddress?.copyMemory(from: base + start, byteCount: count) }
        }
        return count
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        throw StrataError(.readOnly, "an in-memory index file is never written", path: path)
    }

    func size() throws -> Int64 { Int64(bytes.count) }

    func truncate(to size: Int64) throws {
        throw StrataError(.readOnly, "an in-memory index file is never written", path: path)
    }

    func sync() throws {}

    func close() throws {}
}
