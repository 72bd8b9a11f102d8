import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// docs/FORMAT.md checked against the engine. Every byte below is written out by hand
/// from the document, and every checksum is computed by `crc32c` here (a bit-at-a-time
/// reading of §2), never by the engine's codecs: when a test fails, either the code or
/// the document is wrong, and a byte change must bump `Format.version` (§1.2).
@Suite struct FormatSpecTests {
    // MARK: §2 conventions, by hand

    /// CRC-32C as §2 defines it: reflected polynomial 0x82F63B78, init and xorout ~0.
    static func crc32c(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func u64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A fixed store UUID for hand-built stores (§1).
    static let storeID: [UInt8] = Array(0x00...0x0F)

    /// §3.1 / §5.1: magic · version · file id · store UUID · 12 reserved zeros · CRC of bytes 0..<44.
    static func fileHeader(_ magic: String, id: UInt32, storeID: [UInt8], version: UInt32 = 5) -> [UInt8] {
        let body = Array(magic.utf8) + u32(version) + u32(id) + storeID + [UInt8](repeating: 0, count: 12)
        return body + u32(crc32c(body))
    }

    // MARK: §9 worked example: one transaction putting key 1 = "hi", uncompressed

    /// The two frames §9 lists, byte for byte (segment offsets 48..<119).
    static let transaction: [UInt8] = [
        // records frame (§3.2): length 31, CRC-32C 0x5549EC63, type 1 (records), flags 0, reserved 0
        0x1F, 0x00, 0x00, 0x00, 0x63, 0xEC, 0x49, 0x55, 0x01, 0x00, 0x00, 0x00,
        // records block (§3.3): record count 1
        0x01, 0x00, 0x00, 0x00,
        // record: kind 1 (put), key 1, sequence 1
        0x01,
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // value length 2, blob count 0, term count 0, value "hi"
        0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x68, 0x69,
        // commit frame (§3.4): length 16, CRC-32C 0x09A2DD8E, type 2 (commit), flags 0, reserved 0
        0x10, 0x00, 0x00, 0x00, 0x8E, 0xDD, 0xA2, 0x09, 0x02, 0x00, 0x00, 0x00,
        // sequence 1, record count 1, records-frame count 1
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00,
    ]

    /// §6.1: a format-1 manifest naming active segment 1 and active blob file 1, with one metadata entry.
    static let manifest: [UInt8] = {
        var m = Array("STRATMAN".utf8) + u32(1) + u32(0) + storeID
        m += u64(1) + u32(2) + u32(2)                          // generation, next segment id, next blob id
        m += u32(1) + u32(1) + [1] + u64(0) + u64(0)           // 1 segment: id 1, active, min 0, max 0
        m += u32(1) + u32(1) + [1]                              // 1 blob file: id 1, active
        m += u32(1) + u16(4) + Array("hash".utf8) + u32(3) + Array("abc".utf8)
        return m + u32(crc32c(m))
    }()

    /// §6.1, format 2: segment 1 sealed (sequences 1...1), segment 2 active, blob file 1
    /// active, and the counters: segment 1 holds 27 live bytes, key prefix 0 one live key.
    static let manifestV2: [UInt8] = {
        var m = Array("STRATMAN".utf8) + u32(2) + u32(0) + storeID
        m += u64(1) + u32(3) + u32(2)                          // generation, next segment id, next blob id
        m += u32(2) + u32(1) + [2] + u64(1) + u64(1)           // segment 1: sealed, min 1, max 1
        m += u32(2) + [1] + u64(0) + u64(0)                     // segment 2: active
        m += u32(1) + u32(1) + [1]                              // 1 blob file: id 1, active
        m += u32(0)                                             // no metadata
        m += u32(1) + u32(1) + u64(27)                          // live bytes: segment 1 → 27
        m += u32(0)                                             // live bytes per blob file: none
        m += u32(1) + u16(0) + u64(1)                           // live keys: prefix 0 → 1
        return m + u32(crc32c(m))
    }()

    /// §6.1 and §9: the manifest a new store writes, version 5: active segment 1, active
    /// blob file 1, no metadata, and the counters section with its three lists empty.
    static func freshManifest(storeID: [UInt8]) -> [UInt8] {
        var m = Array("STRATMAN".utf8) + u32(5) + u32(0) + storeID
        m += u64(1) + u32(2) + u32(2)                          // generation, next segment id, next blob id
        m += u32(1) + u32(1) + [1] + u64(0) + u64(0)           // 1 segment: id 1, active, min 0, max 0
        m += u32(1) + u32(1) + [1]                              // 1 blob file: id 1, active
        m += u32(0)                                             // no metadata
        m += u32(0) + u32(0) + u32(0)                           // counters: no segment, no blob file, no prefix
        return m + u32(crc32c(m))
    }

    /// §3.5: the seal frame of a segment whose transactions have sequences 1...1.
    static let sealFrame: [UInt8] = {
        let payload = u64(1) + u64(1)
        let head = u32(16), rest: [UInt8] = [3, 0, 0, 0]       // length 16; type 3 (seal), flags 0, reserved 0
        return head + u32(crc32c(head + rest + payload)) + rest + payload
    }()

    // MARK: §7 index file, by hand

    /// §7.5: the SplitMix64 finalizer and the probes, as the document gives them.
    static func bloomBits(keys: [UInt64], bitCount: UInt64, probes: Int) -> [UInt8] {
        var bits = [UInt8](repeating: 0, count: Int(bitCount / 8))
        for key in keys {
            var z = key
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            let h = z ^ (z >> 31)
            let delta = (h >> 33) | 1
            for i in 0..<UInt64(probes) {
                let bit = (h &+ i &* delta) % bitCount
                bits[Int(bit / 8)] |= 1 << UInt8(bit % 8)
            }
        }
        return bits
    }

    static func block(_ body: [UInt8]) -> [UInt8] { body + u32(crc32c(body)) }

    /// §7: the index file of a segment holding §9's record (key 1, sequence 1, in the
    /// records frame at 48 of 43 bytes, at 4 in its block, 27 bytes), with one term
    /// (index 7, value 0xAB) when `withTerm`.
    static func indexFile(withTerm: Bool, version: UInt32 = 5, storeID: [UInt8] = Self.storeID) -> [UInt8] {
        // §7.2 data block: count, then key · sequence · kind · 4 × u32 location · blob count.
        let data = block(u32(1) + u64(1) + u64(1) + [1] + u32(48) + u32(43) + u32(4) + u32(27) + u16(0))
        var file = data                                                            // 0..<43
        var termFence = u32(0)
        if withTerm {
            // §7.3 term block: count, then index · value length · value · key · sequence.
            let terms = block(u32(1) + u32(7) + u16(1) + [0xAB] + u64(1) + u64(1))  // 43..<74
            termFence = u32(1) + u32(7) + u16(1) + [0xAB] + u64(1) + u64(UInt64(file.count)) + u32(UInt32(terms.count))
            file += terms
        }
        // §7.4 fences: data fence entries are last key · offset · length.
        let dataFenceAt = UInt64(file.count)
        let dataFence = block(u32(1) + u64(1) + u64(0) + u32(43))
        file += dataFence
        let termFenceAt = UInt64(file.count)
        let termFenceBlock = block(termFence)
        file += termFenceBlock
        // §7.5 filter: 6 probes over 64 bits (the minimum) for one key.
        let filterAt = UInt64(file.count)
        let filter = block([6] + u32(64) + bloomBits(keys: [1], bitCount: 64, probes: 6))
        file += filter
        // §7.1 footer.
        var footer = Array("STRATIDX".utf8) + u32(version) + u32(1) + storeID
        footer += u64(1) + u64(1) + u64(1) + u64(1) + u64(27)              // min/max key, min/max sequence, record bytes
        footer += u64(1) + u64(1) + u64(0) + u64(withTerm ? 1 : 0)         // entries, live, tombstones, terms
        footer += u64(dataFenceAt) + u64(UInt64(dataFence.count))
        footer += u64(termFenceAt) + u64(UInt64(termFenceBlock.count))
        footer += u64(filterAt) + u64(UInt64(filter.count))
        footer += u32(147)                                                   // segment length: 48 + 71 + the 28-byte seal frame
        footer += u32(crc32c(footer))
        #expect(footer.count == 160)
        return file + footer
    }

    @Test func crcTestVectors() {
        // "123456789" is the check value of the CRC catalogue; the 32-byte ones are RFC 3720 B.4.
        let vectors: [([UInt8], UInt32)] = [
            (Array("123456789".utf8), 0xE306_9283),
            ([UInt8](repeating: 0, count: 32), 0x8A91_36AA),
            ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
            (Array(0...31), 0x46DD_794E),
            ([], 0),
        ]
        for (bytes, expected) in vectors {
            #expect(Self.crc32c(bytes) == expected)
            #expect(CRC32C.checksum(bytes) == expected)
        }
    }

    @Test func frameChecksumsCoverWhatSection3Says() {
        // §3.2: CRC over length (bytes 0..<4), type/flags/reserved (8..<12), then the payload.
        let records = Array(Self.transaction[0..<43])
        let commit = Array(Self.transaction[43...])
        for frame in [records, commit] {
            let covered = Array(frame[0..<4] + frame[8..<12] + frame[12...])
            #expect(Array(frame[4..<8]) == Self.u32(Self.crc32c(covered)))
        }
    }

    @Test func engineWritesExactlyTheWorkedExample() throws {
        let dir = try TemporaryDirectory("format-spec")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.compressRecords = false
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: Array("hi".utf8))
        #expect(try store.commit(batch) == 1)
        let written = try FileBytes.read(dir.appending("segments/000001.seg"))
        let expected = Self.fileHeader("STRATSEG", id: 1, storeID: store.storeID) + Self.transaction
        #expect(written.count == 119)
        #expect(written == expected)

        // §9's manifest: the one creating the store wrote; the commit left it as it was.
        let manifest = try FileBytes.read(dir.appending("MANIFEST"))
        #expect(manifest.count == 102)
        #expect(manifest == Self.freshManifest(storeID: store.storeID))

        // §9's index file: sealing the segment appends §3.5's seal frame and writes the
        // index file §7 describes, the one `indexFile(withTerm: false)` builds by hand.
        try store.sealActiveSegment()
        let sealed = try FileBytes.read(dir.appending("segments/000001.seg"))
        #expect(sealed.count == 147)
        #expect(Array(sealed[119...]) == Self.sealFrame)
        let index = try FileBytes.read(dir.appending("index/000001.idx"))
        #expect(index.count == 256)
        #expect(index == Self.indexFile(withTerm: false, storeID: store.storeID))

        // §9's blob entry, appended to the active blob file after its header.
        let ref = try store.writeBlob(Array("blob".utf8))
        #expect(ref == BlobRef(file: 1, offset: 48, length: 4, checksum: 0xEC35_0E56))
        let blobFile = try FileBytes.read(dir.appending("blobs/000001.blob"))
        #expect(Array(blobFile[0..<48]) == Self.fileHeader("STRATBLB", id: 1, storeID: store.storeID))
        #expect(Array(blobFile[48...]) == [
            0x42, 0x4F, 0x4C, 0x42, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x56, 0x0E, 0x35, 0xEC, 0x4F, 0x74, 0x7C, 0xAC,
            0x62, 0x6C, 0x6F, 0x62,
        ])
        try store.close()
    }

    @Test func handBuiltStoreOpens() throws {
        let dir = try TemporaryDirectory("format-spec")
        defer { dir.remove() }
        for sub in ["segments", "blobs", "index"] {
            try FileManager.default.createDirectory(atPath: dir.appending(sub), withIntermediateDirectories: true)
        }
        // §5.2: one uncompressed blob entry "blob" at offset 48, magic bytes "BOLB".
        let data = Array("blob".utf8)
        var entry = [0x42, 0x4F, 0x4C, 0x42] + Self.u32(0) + Self.u64(4) + Self.u64(4) + Self.u32(Self.crc32c(data))
        entry += Self.u32(Self.crc32c(entry)) + data
        try FileBytes.write(Self.manifest, to: dir.appending("MANIFEST"))
        try FileBytes.write(Self.fileHeader("STRATSEG", id: 1, storeID: Self.storeID, version: 1) + Self.transaction, to: dir.appending("segments/000001.seg"))
        try FileBytes.write(Self.fileHeader("STRATBLB", id: 1, storeID: Self.storeID, version: 1) + entry, to: dir.appending("blobs/000001.blob"))

        #expect(try Manifest.decode(Self.manifest, path: "MANIFEST") == Manifest(
            version: 1, storeID: Self.storeID, generation: 1, nextSegmentID: 2, nextBlobID: 2,
            segments: [.init(id: 1, state: .active, minSequence: 0, maxSequence: 0)],
            blobFiles: [.init(id: 1, state: .active)], metadata: ["hash": Array("abc".utf8)], countersKnown: false))

        // A format-1 store (§12) is read as it is; its first write upgrades it to the
        // format written now (format 2's files, §12.1, §12.2).
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? store.close() }
        #expect(store.formatVersion == 1)
        #expect(try FileBytes.read(dir.appending("MANIFEST")) == Self.manifest)
        #expect(store.storeID == Self.storeID)
        #expect(store.metadata == ["hash": Array("abc".utf8)])
        #expect(store.lastSequence == 1)
        #expect(try store.get(RecordKey(1))?.value == Array("hi".utf8))
        let ref = BlobRef(file: 1, offset: 48, length: 4, checksum: Self.crc32c(data))
        #expect(try store.readBlob(ref) == data)
        var batch = WriteBatch()
        batch.put(RecordKey(2), value: Array("yo".utf8))
        try store.commit(batch)
        #expect(store.formatVersion == Format.version)
        try store.close()
        let upgraded = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? upgraded.close() }
        #expect(upgraded.formatVersion == Format.version)
        #expect(upgraded.count == 2)
        #expect(try upgraded.get(RecordKey(1))?.value == Array("hi".utf8))
    }

    @Test func indexFileIsWhatSection7Says() throws {
        let entry = IndexEntry(key: RecordKey(1), sequence: 1, isTombstone: false,
                               location: RecordLocation(segment: 1, frameOffset: 48, frameLength: 43, recordOffset: 4, recordLength: 27), blobs: [])
        for withTerm in [false, true] {
            let terms = withTerm ? [IndexTermEntry(index: 7, value: TermBytes([0xAB]), key: RecordKey(1), sequence: 1)] : []
            let encoded = try IndexFileBuilder.encode(entries: [entry], terms: terms, segmentID: 1, storeID: Self.storeID,
                                                  minSequence: 1, maxSequence: 1, recordBytes: 27, segmentLength: 147)
            let expected = Self.indexFile(withTerm: withTerm)
            #expect(encoded == expected)
            // And the reader finds what the bytes say.
            let file = try IndexFile(file: ByteArrayFile(path: "000001.idx", bytes: expected), segmentID: 1, storeID: Self.storeID, cache: BlockCache(budget: 1 << 20))
            #expect(try file.entry(RecordKey(1)) == entry)
            #expect(try file.entry(RecordKey(2)) == nil)
            var found: [IndexTermEntry] = []
            try file.terms(index: 7, from: nil, through: nil, lowerInclusive: true, upperInclusive: true) { found.append($0) }
            #expect(found == terms)
        }
    }

    @Test func handBuiltFormat2StoreWithAnIndexFileOpens() throws {
        let dir = try TemporaryDirectory("format-spec-2")
        defer { dir.remove() }
        for sub in ["segments", "blobs", "index"] {
            try FileManager.default.createDirectory(atPath: dir.appending(sub), withIntermediateDirectories: true)
        }
        try FileBytes.write(Self.manifestV2, to: dir.appending("MANIFEST"))
        try FileBytes.write(Self.fileHeader("STRATSEG", id: 1, storeID: Self.storeID, version: 2) + Self.transaction + Self.sealFrame, to: dir.appending("segments/000001.seg"))
        try FileBytes.write(Self.fileHeader("STRATSEG", id: 2, storeID: Self.storeID, version: 2), to: dir.appending("segments/000002.seg"))
        try FileBytes.write(Self.fileHeader("STRATBLB", id: 1, storeID: Self.storeID, version: 2), to: dir.appending("blobs/000001.blob"))
        let index = Self.indexFile(withTerm: false, version: 2)
        try FileBytes.write(index, to: dir.appending("index/000001.idx"))

        var manifest = Manifest(storeID: Self.storeID, generation: 1, nextSegmentID: 3, nextBlobID: 2,
                                segments: [.init(id: 1, state: .sealed, minSequence: 1, maxSequence: 1), .init(id: 2, state: .active, minSequence: 0, maxSequence: 0)],
                                blobFiles: [.init(id: 1, state: .active)])
        manifest.counters.liveBytesBySegment = [1: 27]
        manifest.counters.liveCountByPrefix = [0: 1]
        manifest.version = 2
        #expect(try Manifest.decode(Self.manifestV2, path: "MANIFEST") == manifest)
        #expect(manifest.encoded() == Self.manifestV2)

        let store = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(store.count == 1)
        #expect(store.lastSequence == 1)
        #expect(try store.get(RecordKey(1))?.value == Array("hi".utf8))
        #expect(store.usage.liveRecordBytes == 27)
        let report = try store.verify()
        #expect(report.isSound, "\(report)")
        #expect(report.indexFilesChecked == 1)
        #expect(store.formatVersion == 2)
        // The first write makes it a store of the format written now (§12.1, §12.2): only the manifest's version
        // changes; the format-2 index file stays and is read as it is.
        var batch = WriteBatch()
        batch.put(RecordKey(2), value: Array("yo".utf8))
        try store.commit(batch)
        #expect(store.formatVersion == Format.version)
        #expect(try FileBytes.read(dir.appending("MANIFEST"))[8..<12] == [UInt8(Format.version), 0, 0, 0])
        #expect(try store.verify().isSound)
        try store.close()
        // Nothing rewrote the hand-built index file.
        #expect(try FileBytes.read(dir.appending("index/000001.idx")) == index)
        let reopened = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(reopened.formatVersion == Format.version)
        #expect(try reopened.get(RecordKey(1))?.value == Array("hi".utf8))
        #expect(try reopened.get(RecordKey(2))?.value == Array("yo".utf8))
        try reopened.close()
    }

    @Test func damagedFrameIsReportedWhereItStarts() throws {
        // §4.1: one flipped payload byte fails the frame's CRC; the scan stops at the frame.
        var segment = Self.fileHeader("STRATSEG", id: 1, storeID: Self.storeID) + Self.transaction
        segment[48 + 12 + 4 + 25] ^= 0x01 // the "h" of "hi" (offset 89)
        let fileSystem = InMemoryFileSystem()
        let file = try fileSystem.open("/000001.seg", mode: .create)
        try file.write(segment, at: 0)
        let scan = try SegmentScanner(file: file, segmentID: 1, statistics: nil).scan()
        #expect(scan.damage?.offset == 48)
        #expect(scan.validEnd == 48)
        #expect(scan.records.isEmpty)
    }
}
