import StrataLog

/// Recomputes the checksums of edited files (FORMAT.md §3.1, §3.2, §5.2, §6.1, §7),
/// as a bad backup tool or an attacker would: the damage then reaches the fields the
/// checksums protect, which is where the decoders must hold.
enum Checksums {
    /// The trailing CRC-32C of a manifest or hint file: over every byte before it.
    static func repairTrailer(_ file: inout [UInt8]) {
        guard file.count >= 4 else { return }
        put32(CRC32C.checksum(file[..<(file.count - 4)]), into: &file, at: file.count - 4)
    }

    /// An index file's footer (FORMAT.md §7.1): CRC of its first 156 bytes at 156. The
    /// blocks keep their CRCs: a damaged block is rebuilt from its segment, not trusted.
    static func repairIndexFooter(_ file: inout [UInt8]) {
        guard file.count >= 160 else { return }
        let start = file.count - 160
        put32(CRC32C.checksum(file[start..<(start + 156)]), into: &file, at: start + 156)
    }

    /// The 48-byte header of a segment or blob file: CRC of bytes 0..<44 at 44.
    static func repairFileHeader(_ file: inout [UInt8]) {
        guard file.count >= 48 else { return }
        put32(CRC32C.checksum(file[0..<44]), into: &file, at: 44)
    }

    /// Every frame reachable by its length from `start`, and the file header.
    static func repairFrames(_ file: inout [UInt8], from start: Int) {
        repairFileHeader(&file)
        var position = start
        while position + 12 <= file.count {
            let length = Int(read32(file, at: position))
            let end = position + 12 + length
            guard length <= 64 << 20, end <= file.count else { return }
            let header = Array(file[position..<position + 12])
            let payload = Array(file[position + 12..<end])
            put32(FuzzDecoders.frameChecksum(header: header, payload: payload), into: &file, at: position + 4)
            position = end
        }
    }

    /// Every blob entry header reachable by its stored length, its data CRC too,
    /// and the file header.
    static func repairBlobEntries(_ file: inout [UInt8]) {
        repairFileHeader(&file)
        var position = 48
        while position + 32 <= file.count {
            let stored = UInt64(read32(file, at: position + 8)) | UInt64(read32(file, at: position + 12)) << 32
            guard stored <= UInt64(file.count - position - 32) else { return }
            let end = position + 32 + Int(stored)
            put32(CRC32C.checksum(file[position + 32..<end]), into: &file, at: position + 24)
            put32(CRC32C.checksum(file[position..<position + 28]), into: &file, at: position + 28)
            position = end
        }
    }

    static func read32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    static func put32(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }
}

/// The checksums one damage case recomputes (FORMAT.md §3.1, §3.2, §5.2, §6.1, §7):
/// only those covering the edited field, so that an edit that moves a frame's or an
/// entry's end leaves the rest of the file as it was written.
extension Checksums {
    /// The frame whose header starts at `start`: its CRC over the length, type, flags,
    /// reserved bytes and the payload its (possibly edited) length announces, when that
    /// payload lies inside the file.
    static func repairFrame(_ file: inout [UInt8], at start: Int) {
        guard start >= 0, start + 12 <= file.count else { return }
        let length = Int(read32(file, at: start))
        guard start + 12 + length <= file.count else { return }
        var covered = Array(file[start..<start + 4])
        covered += file[start + 8..<start + 12 + length]
        put32(CRC32C.checksum(covered[...]), into: &file, at: start + 4)
    }

    /// The blob entry whose header starts at `start`: its data CRC over the stored
    /// length it (now) announces, when that lies inside the file, then its header CRC.
    static func repairBlobEntry(_ file: inout [UInt8], at start: Int) {
        guard start >= 0, start + 32 <= file.count else { return }
        let stored = UInt64(read32(file, at: start + 8)) | UInt64(read32(file, at: start + 12)) << 32
        if stored <= UInt64(file.count - start - 32) {
            put32(CRC32C.checksum(file[start + 32..<start + 32 + Int(stored)]), into: &file, at: start + 24)
        }
        put32(CRC32C.checksum(file[start..<start + 28]), into: &file, at: start + 28)
    }

    /// An index file's block (FORMAT.md §7: every block ends with the CRC-32C of its
    /// bytes before it), `length` bytes from `start`, the CRC included.
    static func repairIndexBlock(_ file: inout [UInt8], start: Int, length: Int) {
        guard start >= 0, length >= 4, start + length <= file.count else { return }
        put32(CRC32C.checksum(file[start..<start + length - 4]), into: &file, at: start + length - 4)
    }
}
