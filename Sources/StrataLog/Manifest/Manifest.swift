/// The store's table of contents (FORMAT.md §6): format version, store id, the live
/// segments and blob files, and the caller's metadata (the object layer keeps the
/// model's version hash there). Replaced atomically, never edited in place.
struct Manifest: Equatable, Sendable {
    struct SegmentInfo: Equatable, Sendable {
        var id: UInt32
        var state: FileState
        var minSequence: UInt64
        var maxSequence: UInt64
    }

    struct BlobFileInfo: Equatable, Sendable {
        var id: UInt32
        var state: FileState
    }

    var version: UInt32 = Format.version
    var storeID: [UInt8]
    /// Increases with every manifest written; a reader can tell two apart.
    var generation: UInt64 = 1
    var nextSegmentID: UInt32 = 1
    var nextBlobID: UInt32 = 1
    var segments: [SegmentInfo] = []
    var blobFiles: [BlobFileInfo] = []
    var metadata: [String: [UInt8]] = [:]
    /// The counters of the sealed segments (format 2, FORMAT.md §6.1): updated at each
    /// roll and compaction swap, when the active segment holds nothing; open replays the
    /// active segment on top of them. A format-1 manifest has none (`countersKnown` false).
    var counters = IndexCounters()
    var countersKnown = true

    var activeSegment: SegmentInfo? { segments.last(where: { $0.state == .active }) }
    var activeBlobFile: BlobFileInfo? { blobFiles.last(where: { $0.state == .active }) }

    /// The next segment id, never one used before. Throws `.limitExceeded` when ids
    /// are exhausted (a damaged manifest can say so: 0xFFFFFFFF is never allocated,
    /// it is where counting stops).
    mutating func allocateSegmentID() throws -> UInt32 {
        let id = nextSegmentID
        nextSegmentID = try Checked.successor(of: id, "segment id", path: "MANIFEST")
        return id
    }

    /// The next blob file id; throws as ``allocateSegmentID()``.
    mutating func allocateBlobID() throws -> UInt32 {
        let id = nextBlobID
        nextBlobID = try Checked.successor(of: id, "blob file id", path: "MANIFEST")
        return id
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 256)
        w.bytes(Format.manifestMagic)
        w.u32(version)
        w.u32(0) // flags, reserved
        w.bytes(storeID)
        w.u64(generation)
        w.u32(nextSegmentID)
        w.u32(nextBlobID)
        w.u32(UInt32(segments.count))
        for s in segments {
            w.u32(s.id)
            w.u8(s.state.rawValue)
            w.u64(s.minSequence)
            w.u64(s.maxSequence)
        }
        w.u32(UInt32(blobFiles.count))
        for b in blobFiles {
            w.u32(b.id)
            w.u8(b.state.rawValue)
        }
        w.u32(UInt32(metadata.count))
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            w.string16(key)
            w.u32(UInt32(value.count))
            w.bytes(value)
        }
        if version >= 2 {
            let segmentsLive = counters.liveBytesBySegment.sorted { $0.key < $1.key }
            w.u32(UInt32(segmentsLive.count))
            for (id, bytes) in segmentsLive { w.u32(id); w.u64(UInt64(bitPattern: bytes)) }
            let blobsLive = counters.liveBytesByBlobFile.sorted { $0.key < $1.key }
            w.u32(UInt32(blobsLive.count))
            for (id, bytes) in blobsLive { w.u32(id); w.u64(UInt64(bitPattern: bytes)) }
            let prefixes = counters.liveCountByPrefix.sorted { $0.key < $1.key }
            w.u32(UInt32(prefixes.count))
            for (prefix, count) in prefixes { w.u16(prefix); w.u64(UInt64(bitPattern: count)) }
        }
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Parses a manifest, naming the file and offset of anything wrong.
    static func decode(_ bytes: [UInt8], path: String) throws -> Manifest {
        guard bytes.count >= 12 else {
            throw StrataError(.corrupt, "manifest is only \(bytes.count) bytes", path: path, offset: 0)
        }
        let body = bytes.count - 4
        var trailer = ByteReader(bytes, from: body, path: path)
        let crc = try trailer.u32("manifest checksum")
        guard crc == CRC32C.checksum(bytes[0..<body]) else {
            throw StrataError(.corrupt, "manifest checksum mismatch: the manifest is damaged", path: path, offset: Int64(body))
        }
        var r = ByteReader(bytes, to: body, path: path)
        guard try r.bytes(8, "magic") == Format.manifestMagic else {
            throw StrataError(.corrupt, "not a Strata manifest (wrong magic number)", path: path, offset: 0)
        }
        let version = try r.u32("version")
        guard Format.readableVersions.contains(version) else {
            throw StrataError(.unsupportedFormat, "store format version \(version) is not readable by this release (reads \(Format.readableVersions))", path: path, offset: 8)
        }
        _ = try r.u32("flags")
        var m = Manifest(version: version, storeID: try r.bytes(16, "store id"))
        m.generation = try r.u64("generation")
        m.nextSegmentID = try r.u32("next segment id")
        m.nextBlobID = try r.u32("next blob id")
        let segmentCount = try r.u32("segment count")
        for _ in 0..<segmentCount {
            let id = try r.u32("segment id")
            let stateByte = try r.u8("segment state")
            guard let state = FileState(rawValue: stateByte) else { throw r.corrupt("unknown segment state \(stateByte)") }
            m.segments.append(SegmentInfo(id: id, state: state, minSequence: try r.u64("min sequence"), maxSequence: try r.u64("max sequence")))
        }
        let blobCount = try r.u32("blob file count")
        for _ in 0..<blobCount {
            let id = try r.u32("blob file id")
            let stateByte = try r.u8("blob file state")
            guard let state = FileState(rawValue: stateByte) else { throw r.corrupt("unknown blob file state \(stateByte)") }
            m.blobFiles.append(BlobFileInfo(id: id, state: state))
        }
        let metadataCount = try r.u32("metadata count")
        for _ in 0..<metadataCount {
            let key = try r.string16("metadata key")
            let length = Int(try r.u32("metadata length"))
            m.metadata[key] = try r.bytes(length, "metadata value")
        }
        if version >= 2 {
            // Each list is sorted by id and holds no duplicate (FORMAT.md §6.1): a list
            // that is not was edited, and a repeated id would silently replace a figure.
            var previous: UInt64?
            func ascending(_ id: UInt64, _ what: String) throws {
                if let previous, id <= previous { throw r.corrupt("the counters list \(what) \(id) after \(previous): not sorted, or repeated") }
                previous = id
            }
            let segmentsLive = try r.u32("live segment count")
            guard segmentsLive <= UInt32(r.remaining / 12) else { throw r.corrupt("live segment count \(segmentsLive) exceeds the manifest") }
            for _ in 0..<segmentsLive {
                let id = try r.u32("segment id")
                try ascending(UInt64(id), "segment")
                m.counters.liveBytesBySegment[id] = Int64(bitPattern: try r.u64("live bytes"))
            }
            previous = nil
            let blobsLive = try r.u32("live blob file count")
            guard blobsLive <= UInt32(r.remaining / 12) else { throw r.corrupt("live blob file count \(blobsLive) exceeds the manifest") }
            for _ in 0..<blobsLive {
                let id = try r.u32("blob file id")
                try ascending(UInt64(id), "blob file")
                m.counters.liveBytesByBlobFile[id] = Int64(bitPattern: try r.u64("live bytes"))
            }
            previous = nil
            let prefixes = try r.u32("key prefix count")
            guard prefixes <= UInt32(r.remaining / 10) else { throw r.corrupt("key prefix count \(prefixes) exceeds the manifest") }
            for _ in 0..<prefixes {
                let prefix = try r.u16("key prefix")
                try ascending(UInt64(prefix), "key prefix")
                m.counters.liveCountByPrefix[prefix] = Int64(bitPattern: try r.u64("live keys"))
            }
        } else {
            m.countersKnown = false
        }
        guard r.isAtEnd else { throw r.corrupt("\(r.remaining) unexpected bytes after the manifest's fields") }
        // An id listed twice would open one file as two segments (or blob files).
        guard Set(m.segments.map(\.id)).count == m.segments.count, Set(m.blobFiles.map(\.id)).count == m.blobFiles.count else {
            throw StrataError(.corrupt, "manifest lists a segment or blob file id twice", path: path, context: ["field": "segments/blobFiles"])
        }
        guard m.segments.filter({ $0.state == .active }).count == 1 else {
            throw StrataError(.corrupt, "manifest lists \(m.segments.filter { $0.state == .active }.count) active segments, expected 1", path: path)
        }
        return m
    }
}
