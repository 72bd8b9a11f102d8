import CStrataCRC

/// CRC-32C (Castagnoli, polynomial 0x1EDC6F41 reflected as 0x82F63B78), the checksum
/// of every frame, blob, manifest and hint file (FORMAT.md §2). Every read checks one,
/// so it runs on the CPU's CRC-32C instruction where there is one (SSE 4.2, ARMv8
/// CRC): a random fetch checks a whole 4 KiB block, and slicing-by-8 in software spent
/// about as long on that as decompressing it. Elsewhere, slicing-by-8.
package enum CRC32C {
    /// Whether `checksum` uses the CPU's instruction; decided once per process.
    package static let usesHardware = strata_crc32c_hardware_available() != 0

    static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for i in 0..<256 {
            var crc = UInt32(i)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[0][i] = crc
        }
        for i in 0..<256 {
            for t in 1..<8 {
                let previous = tables[t - 1][i]
                tables[t][i] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// Flattened copy of `tables` so the inner loop indexes one buffer.
    static let flat: [UInt32] = tables.flatMap { $0 }

    /// The checksum of `bytes`, continuing from `crc` (0 to start).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        usesHardware ? hardwareChecksum(bytes, continuing: crc) : softwareChecksum(bytes, continuing: crc)
    }

    /// With the CPU's instruction; only where `usesHardware` (tests compare the two).
    static func hardwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress else { return crc }
        return ~strata_crc32c_hardware_update(~crc, base, bytes.count)
    }

    /// Slicing-by-8: eight table lookups per eight bytes.
    static func softwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var c = ~crc
        flat.withUnsafeBufferPointer { t in
            guard var p = bytes.baseAddress else { return }
            var n = bytes.count
            while n >= 8 {
                let word = p.loadUnaligned(as: UInt64.self).littleEndian
                let lo = UInt32(truncatingIfNeeded: word) ^ c
                let hi = UInt32(truncatingIfNeeded: word >> 32)
                c = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                p += 8
                n -= 8
            }
            while n > 0 {
                c = t[Int((c ^ UInt32(p.load(as: UInt8.self))) & 0xFF)] ^ (c >> 8)
                p += 1
                n -= 1
            }
        }
        return ~c
    }

    /// The checksum of a byte array.
    package static func checksum(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: crc) }
    }

    /// The checksum of a slice.
    package static func checksum(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: crc) }
    }
}
