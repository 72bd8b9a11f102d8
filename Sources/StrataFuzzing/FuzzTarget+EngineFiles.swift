import Strata
import StrataLog

/// The engine's file formats, one decoder at a time. Each input starts with a mode
/// byte whose bit 0 asks for the file's checksums to be recomputed first, so that
/// the fuzzer reaches the fields behind them rather than only the checksum test.
extension FuzzTarget {
    static func segment(_ bytes: [UInt8]) throws {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        var file = input.rest()
        if mode & 1 == 1 { Checksums.repairFrames(&file, from: 48) }
        let summary = try FuzzDecoders.scanSegment(file)
        if file.count >= 48, summary.validEnd > Int64(file.count) {
            throw FuzzFinding("segment: valid end \(summary.validEnd) past the file's \(file.count) bytes")
        }
        if let damage = summary.damageOffset, damage > Int64(file.count) {
            throw FuzzFinding("segment: damage reported at \(damage), past the file's \(file.count) bytes")
        }
    }

    static func recordsBlock(_ bytes: [UInt8]) throws {
        _ = try FuzzDecoders.decodeRecordsBlock(bytes)
    }

    static func index(_ bytes: [UInt8]) throws {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        var file = input.rest()
        if mode & 1 == 1 {
            if file.count >= 160 && Array(file[(file.count - 160)..<(file.count - 152)]) == Array("STRATIDX".utf8) {
                Checksums.repairIndexFooter(&file)
            } else {
                Checksums.repairTrailer(&file)
            }
        }
        let decoded = try FuzzDecoders.decodeIndexFile(file)
        guard decoded.roundTrip else { throw FuzzFinding("index: a decoded index file does not encode back to itself") }
    }

    static func manifest(_ bytes: [UInt8]) throws {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        var file = input.rest()
        if mode & 1 == 1 { Checksums.repairTrailer(&file) }
        guard try FuzzDecoders.decodeManifest(file) else {
            throw FuzzFinding("manifest: a decoded manifest does not encode back to itself")
        }
    }

    /// Mode bit 1 reads one blob through a reference taken from the input (file id,
    /// offset, length, checksum: 24 bytes), as a damaged record would hold it.
    static func blob(_ bytes: [UInt8]) throws {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        if mode & 2 == 2 {
            let ref = BlobRef(file: 1, offset: input.u64(), length: input.u64(), checksum: UInt32(truncatingIfNeeded: input.u64()))
            var file = input.rest()
            if mode & 1 == 1 { Checksums.repairBlobEntries(&file) }
            _ = try FuzzDecoders.readBlob(ref, fromFile: file)
            return
        }
        var file = input.rest()
        if mode & 1 == 1 { Checksums.repairBlobEntries(&file) }
        let read = try FuzzDecoders.readBlobFile(file)
        if file.count >= 48, read.validEnd > Int64(file.count) {
            throw FuzzFinding("blob: valid end \(read.validEnd) past the file's \(file.count) bytes")
        }
    }

    static func objectRecord(_ bytes: [UInt8]) throws {
        let ref = BlobRef(file: 1, offset: 48, length: 10, checksum: 0)
        _ = try FuzzObjectDecoders.decodeObject(value: bytes, blobs: [ref, ref])
    }
}
