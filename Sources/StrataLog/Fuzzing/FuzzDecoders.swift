/// The engine's file decoders, for the fuzz targets and their corpus replay (`Fuzz/`
/// through `StrataFuzzing`, `Tests/StrataTests/Fuzzing`): package API, not public.
///
/// Each function takes a whole file's bytes, decodes them the way open and reads do,
/// and returns what it found; a decoding failure is a thrown `StrataError`, never a
/// trap. The functions add the oracles a fuzzer needs (a decoded manifest or hint
/// encodes back to what decodes to the same value), and nothing else.
///
/// ```swift
/// import StrataLog
/// let records = try FuzzDecoders.scanSegment(bytes)
/// ```
package enum FuzzDecoders {
    /// What a segment scan found: committed records and where scanning stopped.
    package struct SegmentSummary: Sendable {
        package var records: [Record]
        package var damageOffset: Int64?
        package var sealed: Bool
        package var validEnd: Int64
    }

    /// Scans `bytes` as a segment file (its header is not checked, as open checks it
    /// apart): every frame, records block and commit (FORMAT.md §3–§4.1).
    ///
    /// - Throws: `StrataError` when the bytes cannot be read as a segment at all.
    package static func scanSegment(_ bytes: [UInt8]) throws -> SegmentSummary {
        let file = try memoryFile(bytes, name: "000001.seg")
        let scan = try SegmentScanner(file: file, segmentID: 1, statistics: nil).scan()
        return SegmentSummary(records: scan.records.map(\.record), damageOffset: scan.damage?.offset, sealed: scan.sealed, validEnd: scan.validEnd)
    }

    /// Decodes one records block (a records frame's raw payload, FORMAT.md §3.3).
    ///
    /// - Throws: `StrataError.Code.corrupt` at the first field that does not parse.
    package static func decodeRecordsBlock(_ bytes: [UInt8]) throws -> [Record] {
        var reader = ByteReader(bytes, path: "records block")
        let count = Int(try reader.u32("record count"))
        var records: [Record] = []
        for _ in 0..<count { records.append(try RecordCodec.decode(&reader)) }
        return records
    }

    /// Decodes a manifest and checks that it encodes back to an equal manifest.
    ///
    /// - Returns: whether the round trip held (a fuzz target treats `false` as a finding).
    /// - Throws: `StrataError` when the bytes are not a manifest.
    package static func decodeManifest(_ bytes: [UInt8]) throws -> Bool {
        let manifest = try Manifest.decode(bytes, path: "MANIFEST")
        return (try? Manifest.decode(manifest.encoded(), path: "MANIFEST")) == manifest
    }

    /// Decodes a sealed segment's index file (today a hint file, FORMAT.md §7) and
    /// checks its round trip, like `decodeManifest`.
    ///
    /// - Returns: whether the round trip held, and the number of entries.
    package static func decodeIndexFile(_ bytes: [UInt8]) throws -> (roundTrip: Bool, entries: Int) {
        // Format 2 (FORMAT.md §7): the footer names its segment and store; every block
        // is read and checked.
        if bytes.count >= IndexFooter.size, Array(bytes[(bytes.count - IndexFooter.size)..<(bytes.count - IndexFooter.size + 8)]) == Format.indexMagic {
            let footer = try IndexFooter.decode(Array(bytes[(bytes.count - IndexFooter.size)...]), fileSize: Int64(bytes.count), path: "000001.idx")
            let file = try IndexFile(file: ByteArrayFile(path: "000001.idx", bytes: bytes), segmentID: footer.segmentID, storeID: footer.storeID,
                                     cache: BlockCache(budget: 1 << 20))
            let all: (entries: [IndexEntry], terms: [IndexTermEntry])
            do { all = try file.readAll() } catch { throw error.error }
            // No round-trip oracle: a reader need not accept only canonical files (it
            // checks what it uses, and a damaged file is rebuilt from its segment), so
            // the finding here is a trap, a hang or an unbounded allocation.
            return (true, all.entries.count)
        }
        let hint = try HintFile.decode(bytes, path: "000001.hint")
        let again = try? HintFile.decode(hint.encoded(), path: "000001.hint")
        let same = again.map { $0.entries == hint.entries && $0.segmentID == hint.segmentID && $0.storeID == hint.storeID
            && $0.minSequence == hint.minSequence && $0.maxSequence == hint.maxSequence && $0.recordBytes == hint.recordBytes } ?? false
        return (same, hint.entries.count)
    }

    /// Walks a blob file's entries (FORMAT.md §5) and reads each whole one through the
    /// reader that serves `readBlob`, with a reference built from its own header.
    ///
    /// - Returns: the blobs read, and the end of the last whole entry.
    /// - Throws: `StrataError` when an entry the walk accepted cannot be read.
    package static func readBlobFile(_ bytes: [UInt8]) throws -> (blobs: [[UInt8]], validEnd: Int64) {
        let file = try memoryFile(bytes, name: "000001.blob")
        let end = try BlobReader.validEnd(of: file)
        var blobs: [[UInt8]] = []
        var position = Int64(Format.blobHeaderSize)
        while position + Int64(Format.blobEntryHeaderSize) <= end {
            let start = Int(position)
            guard let header = BlobEntryHeader.decode(bytes[start..<start + Format.blobEntryHeaderSize]) else { break }
            let ref = BlobRef(file: 1, offset: UInt64(position), length: header.storedLength, checksum: header.dataChecksum)
            if let blob = try? BlobReader.read(ref, from: file) { blobs.append(blob.bytes) }
            position += Int64(Format.blobEntryHeaderSize) + Int64(header.storedLength)
        }
        return (blobs, end)
    }

    /// Reads a blob through `ref` from a blob file holding `bytes`: the reference comes
    /// from a record, which a damaged or hostile store controls as much as the file.
    ///
    /// - Throws: `StrataError` when the reference does not lead to an intact entry.
    package static func readBlob(_ ref: BlobRef, fromFile bytes: [UInt8]) throws -> [UInt8] {
        try BlobReader.read(ref, from: try memoryFile(bytes, name: "000001.blob")).bytes
    }

    /// The frame checksum of FORMAT.md §3.2, for targets that edit frames and keep them valid.
    package static func frameChecksum(header: [UInt8], payload: [UInt8]) -> UInt32 {
        FrameCodec.checksum(header: header, payload: payload)
    }

    private static func memoryFile(_ bytes: [UInt8], name: String) throws -> any StorageFile {
        let fileSystem = InMemoryFileSystem()
        try fileSystem.createDirectory("/fuzz")
        try fileSystem.setBytes(bytes, of: "/fuzz/" + name)
        return try fileSystem.open("/fuzz/" + name, mode: .readOnly)
    }
}
