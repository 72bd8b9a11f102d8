/// Appends one sorted run to a spill sort's scratch file (`SpillSorter`,
/// `PackedTermSorter`), at its end, through a buffer written out a MiB at a time: a
/// spilled batch and a run merged ahead are written the same way.
struct ScratchRunWriter {
    private let file: any StorageFile
    private let start: Int64
    private var end: Int64
    private var out = ByteWriter(capacity: 1 << 20)

    init(file: any StorageFile, at start: Int64) {
        self.file = file
        self.start = start
        end = start
    }

    /// Adds one item's bytes as `write` puts them.
    mutating func append(_ write: (inout ByteWriter) -> Void) throws {
        write(&out)
        if out.count >= 1 << 20 { try flush() }
    }

    /// Adds `bytes` as they are.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws {
        try append { $0.fixed(bytes.count) { $0.copyMemory(from: bytes) } }
    }

    /// Adds an item behind its length (four bytes, little-endian), as `encode` writes it.
    mutating func appendFramed(_ encode: (inout ByteWriter) -> Void) throws {
        try append { out in
            let at = out.count
            out.u32(0)
            encode(&out)
            out.patch(u32: UInt32(out.count - at - 4), at: at)
        }
    }

    /// Writes what is buffered; the run's bytes in the file.
    mutating func finish() throws -> Range<Int64> {
        try flush()
        return start..<end
    }

    private mutating func flush() throws {
        guard out.count > 0 else { return }
        try file.write(out.bytes, at: end)
        end += Int64(out.count)
        out = ByteWriter(capacity: 1 << 20)
    }
}
