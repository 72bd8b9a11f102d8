import StrataLog

/// Records written to a scratch file in order and read back in chunks: what a pass
/// over the store means to write, held until a check over the whole pass allows it.
/// An in-place index build on a record store other than the segment log (whose
/// commit the pass cannot feed as it reads) reads each record once, hands its new
/// terms to the uniqueness check and the record with them to the spool; only once no
/// duplicate is found is the spool committed (``InPlaceMigration/buildIndexes``), so a
/// failing check leaves the store as it was without a second read of every record.
///
/// A record is its key (u64), its value, blob references and terms, each count and
/// length a u32, integers little-endian. The file is scratch, outside the store.
final class RecordSpool {
    private let fileSystem: any FileSystem
    private let path: String
    private let file: any StorageFile
    private var out = SpoolBuffer(capacity: RecordSpool.flushAt)
    private var written: Int64 = 0
    private var readOffset: Int64 = 0
    private var buffer: [UInt8] = []
    private var position = 0
    private(set) var count = 0
    private var read = 0

    private static let flushAt = 256 << 10

    init(path: String, fileSystem: any FileSystem) throws {
        self.path = path
        self.fileSystem = fileSystem
        try fileSystem.remove(path)
        file = try fileSystem.open(path, mode: .create)
    }

    func append(key: RecordKey, value: [UInt8], blobs: [BlobRef], terms: [IndexTerm]) throws {
        var size = 20 + value.count + 24 * blobs.count
        for term in terms { size += 8 + term.value.count }
        if out.count + size > out.capacity { try flush() }
        out.reserve(size)
        // Written in place: appending each integer's bytes to an array goes through a
        // generic copy per integer.
        out.write(size) { w in
            var at = 0
            func put<T: FixedWidthInteger>(_ v: T) {
                w.storeBytes(of: v.littleEndian, toByteOffset: at, as: T.self)
                at += MemoryLayout<T>.size
            }
            func put(_ bytes: [UInt8]) {
                bytes.withUnsafeBytes { if let base = $0.baseAddress { (w + at).copyMemory(from: base, byteCount: $0.count) } }
                at += bytes.count
            }
            put(key.rawValue)
            put(UInt32(value.count))
            put(value)
            put(UInt32(blobs.count))
            for blob in blobs {
                put(blob.file)
                put(blob.checksum)
                put(blob.offset)
                put(blob.length)
            }
            put(UInt32(terms.count))
            for term in terms {
                put(term.index)
                put(UInt32(term.value.count))
                put(term.value)
            }
        }
        count += 1
    }

    private func flush() throws {
        guard out.count > 0 else { return }
        try out.withBytes { try file.write($0, at: written) }
        written += Int64(out.count)
        out.count = 0
    }

    /// Whether records are left to read.
    var hasMore: Bool { read < count }

    /// Ends the writing: what is still buffered goes to the file (before anything is
    /// committed, so that a full scratch disk fails the pass, not the commit).
    func finishWriting() throws { try flush() }

    /// Puts up to `limit` of the next records into `batch` (after `finishWriting`).
    func read(into batch: inout WriteBatch, limit: Int) throws {
        var taken = 0
        while taken < limit, read < count {
            let key = RecordKey(try u64())
            let value = try bytes(Int(try u32()))
            let blobCount = Int(try u32())
            var blobs: [BlobRef] = []
            blobs.reserveCapacity(blobCount)
            for _ in 0..<blobCount {
                let file = try u32(), checksum = try u32()
                blobs.append(BlobRef(file: file, offset: try u64(), length: try u64(), checksum: checksum))
            }
            let termCount = Int(try u32())
            var terms: [IndexTerm] = []
            terms.reserveCapacity(termCount)
            for _ in 0..<termCount {
                let index = try u32()
                terms.append(IndexTerm(index: index, value: try bytes(Int(try u32()))))
            }
            batch.put(key, value: value, blobs: blobs, terms: terms)
            read += 1
            taken += 1
        }
    }

    /// Closes and removes the file.
    func remove() {
        try? file.close()
        try? fileSystem.remove(path)
    }

    // MARK: Reading

    private func fill(_ needed: Int) throws {
        guard buffer.count - position < needed else { return }
        buffer.removeFirst(position)
        position = 0
        let want = Int(min(written - readOffset, Int64(max(needed - buffer.count, Self.flushAt))))
        guard want > 0, buffer.count + want >= needed else {
            throw StrataError(.corrupt, "the migration's record spool ends inside a record", path: path)
        }
        buffer.append(contentsOf: try file.readExactly(want, at: readOffset))
        readOffset += Int64(want)
    }

    private func u32() throws -> UInt32 {
        try fill(4)
        defer { position += 4 }
        return buffer.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: UInt32.self)) }
    }

    private func u64() throws -> UInt64 {
        try fill(8)
        defer { position += 8 }
        return buffer.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: UInt64.self)) }
    }

    private func bytes(_ n: Int) throws -> [UInt8] {
        try fill(n)
        defer { position += n }
        return Array(buffer[position..<position + n])
    }
}

/// The spool's write buffer: one allocation, written in place.
private final class SpoolBuffer {
    private var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// Room for `size` more bytes (a record larger than the buffer grows it).
    func reserve(_ size: Int) {
        guard count + size > capacity else { return }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: count + size, alignment: 8)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
        capacity = count + size
    }

    /// Writes `size` bytes at the end (after `reserve(size)`).
    func write(_ size: Int, _ fill: (UnsafeMutableRawPointer) -> Void) {
        fill(base + count)
        count += size
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}
