/// Appends little-endian integers and byte strings to a growing buffer — the only
/// way the engine encodes what it writes (FORMAT.md §2: all integers little-endian).
struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) { append(littleEndian: value) }

    mutating func u32(_ value: UInt32) { append(littleEndian: value) }

    mutating func u64(_ value: UInt64) { append(littleEndian: value) }

    mutating func bytes(_ value: [UInt8]) { bytes.append(contentsOf: value) }

    mutating func bytes(_ value: ArraySlice<UInt8>) { bytes.append(contentsOf: value) }

    /// A UTF-8 string preceded by its length as u16.
    mutating func string16(_ value: String) {
        let utf8 = Array(value.utf8.prefix(Int(UInt16.max)))
        u16(UInt16(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Appends `size` bytes that `fill` writes (at byte offsets, `storeBytes`): a
    /// fixed header of several integers in one copy, where each integer appended on
    /// its own costs a generic copy.
    mutating func fixed(_ size: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
            fill(buffer)
            bytes.append(contentsOf: UnsafeRawBufferPointer(buffer))
        }
    }

    /// Overwrites a u32 written earlier (a length or checksum known only later).
    mutating func patch(u32 value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for i in 0..<4 { bytes[offset + i] = raw[i] }
        }
    }

    private mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
