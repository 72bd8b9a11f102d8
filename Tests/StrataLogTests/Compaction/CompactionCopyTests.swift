import Testing
import Foundation
import Logging
import StrataTestSupport
@testable import StrataLog

/// Compaction copies the bytes of the records it keeps unchanged, decoding only those
/// it must write anew. What it writes must be what a commit of the same records writes:
/// the same values, blobs and terms, and index files equal to the ones a scan of its
/// segments builds.
@Suite struct CompactionCopyTests {
    static let root = "/store"

    /// A store whose records carry values, blob references and terms, with keys written
    /// twice in one transaction, tombstones with older versions elsewhere, and half of
    /// every early transaction superseded.
    static func store(_ fs: InMemoryFileSystem, options: LogStoreOptions) throws -> (LogStore, expected: [UInt64: [UInt8]]) {
        let store = try LogStore.open(at: root, options: options, fileSystem: fs, logger: .quiet)
        var expected: [UInt64: [UInt8]] = [:]
        for round in 0..<6 {
            var batch = WriteBatch()
            for key in UInt64(0)..<200 where round == 0 || key % UInt64(round + 1) == 0 {
                let value = LogFixtures.value(key, version: round, size: 40 + Int(key % 50))
                let blobs = key % 7 == 0 ? [try store.writeBlob(LogFixtures.value(key, version: round, size: 300))] : []
                let terms = [IndexTerm(index: 1, value: Array("name-\(key % 30)-\(round)".utf8)),
                             IndexTerm(index: 2, value: withUnsafeBytes(of: (key * 3).bigEndian) { Array($0) })]
                batch.put(RecordKey(key), value: value, blobs: blobs, terms: key % 5 == 0 ? [] : terms)
                expected[key] = value
            }
            if round == 2 {
                // Written twice in one transaction: only the later record is a version.
                let value = LogFixtures.value(3, version: 99, size: 60)
                batch.put(RecordKey(3), value: value, terms: [IndexTerm(index: 1, value: Array("twice".utf8))])
                expected[3] = value
            }
            if round == 4 {
                for key in stride(from: UInt64(1), to: 200, by: 11) {
                    batch.delete(RecordKey(key))
                    expected[key] = nil
                }
            }
            try store.commit(batch)
        }
        return (store, expected)
    }

    /// Small segments and blocks: several outputs, many frames.
    static func smallSegments() -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 8 << 10
        options.blockSize = 512
        return options
    }

    /// The keys each of the two indexes lists, in order.
    static func termKeys(_ store: LogStore) throws -> [[RecordKey]] {
        try [1, 2].map { try store.keys(index: $0, from: nil, through: nil) }
    }

    static func indexBytes(_ fs: InMemoryFileSystem, _ store: LogStore, segment id: UInt32) throws -> [UInt8] {
        let file = try fs.open(store.paths.indexFile(id), mode: .readOnly)
        defer { try? file.close() }
        return try file.readExactly(Int(try file.size()), at: 0)
    }

    @Test(arguments: [false, true])
    func copiesReadBackAndTheirIndexFilesEqualARebuild(retaining: Bool) throws {
        let fs = InMemoryFileSystem()
        let (store, expected) = try Self.store(fs, options: Self.smallSegments())
        defer { try? store.close() }
        // A retention keeps the superseded versions after the third transaction: the
        // copies then include versions that are not current, some read back by key.
        let retention = store.lastSequence - 3
        if retaining { store.setVersionRetention { _ in VersionRetention(after: retention) } }
        let past = retaining ? try store.snapshot(asOf: retention + 1) : nil
        let pastValues = try past.map { past in try (UInt64(0)..<200).map { try past.get(RecordKey($0))?.value } }
        let termKeys = try Self.termKeys(store)
        let before = Set(store.state.withLock { $0.manifest.segments.map(\.id) })

        let report = try store.compact(force: true)
        #expect(report.recordsRewritten > 0)
        #expect(report.recordsReencoded == 0)

        for key in UInt64(0)..<200 { #expect(try store.get(RecordKey(key))?.value == expected[key], "key \(key)") }
        #expect(try Self.termKeys(store) == termKeys)
        if let past, let pastValues {
            for key in UInt64(0)..<200 { #expect(try past.get(RecordKey(key))?.value == pastValues[Int(key)], "key \(key) as of \(retention + 1)") }
        }
        let storeID = store.storeID
        let written = store.state.withLock { $0.manifest.segments.filter { $0.state == .sealed && !before.contains($0.id) }.map(\.id) }
        #expect(!written.isEmpty)
        for id in written {
            let segment = try fs.open(store.paths.segment(id), mode: .readOnly)
            let (rebuilt, scan) = try IndexFileBuilder.scanning(segment, segmentID: id, storeID: storeID)
            try segment.close()
            #expect(scan.damage == nil && scan.sealed)
            #expect(try Self.indexBytes(fs, store, segment: id) == rebuilt, "segment \(id)")
        }
        #expect(try store.verify().isSound)
    }

    /// Records that must change are decoded and encoded anew, the rest copied, in one
    /// transaction: a rewriter that changes every record whose key is even.
    @Test func rewrittenAndCopiedRecordsShareTheirTransactions() throws {
        let fs = InMemoryFileSystem()
        let (store, expected) = try Self.store(fs, options: Self.smallSegments())
        defer { try? store.close() }
        store.setRecordRewriter { record in
            guard record.key.rawValue % 2 == 0 else { return nil }
            var rewritten = record
            rewritten.value = record.value + [0xEE]
            return rewritten
        }
        let termKeys = try Self.termKeys(store)
        let report = try store.compact(force: true)
        #expect(report.recordsReencoded > 0 && report.recordsReencoded < report.recordsRewritten)
        for key in UInt64(0)..<200 {
            let wanted = expected[key].map { key % 2 == 0 ? $0 + [0xEE] : $0 }
            #expect(try store.get(RecordKey(key))?.value == wanted, "key \(key)")
        }
        #expect(try Self.termKeys(store) == termKeys)
        #expect(try store.verify().isSound)
    }

    /// Compaction reads records by their headers (`SegmentScanner.scanHeaders`), which
    /// must refuse exactly what a decoding scan refuses: every byte of the first
    /// records frames changed, with the frame's checksum made valid again, is damage to
    /// both at the same offset or to neither, and both hand over the same records.
    @Test func aHeaderScanRefusesWhatADecodingScanRefuses() throws {
        let fs = InMemoryFileSystem()
        var options = LogStoreOptions()
        options.segmentSizeLimit = 1 << 20
        options.blockSize = 256
        options.compressRecords = false
        let (store, _) = try Self.store(fs, options: options)
        try store.sealActiveSegment()
        let id = try #require(store.state.withLock { $0.manifest.segments.first?.id })
        let path = store.paths.segment(id)
        try store.close()
        let original = try { () throws -> [UInt8] in
            let file = try fs.open(path, mode: .readOnly)
            defer { try? file.close() }
            return try file.readExactly(Int(try file.size()), at: 0)
        }()
        // The payloads of the first four records frames; the copies end with the first
        // transaction's commit frame (the rest would only be read again each time).
        var payloads: [(header: Int, payload: Range<Int>)] = []
        var position = Format.segmentHeaderSize
        var firstCommitEnd: Int?
        while firstCommitEnd == nil, position + Format.frameHeaderSize <= original.count {
            let header = try #require(FrameCodec.parseHeader(Array(original[position..<position + Format.frameHeaderSize])))
            let payload = position + Format.frameHeaderSize..<position + Format.frameHeaderSize + Int(header.length)
            if header.typeByte == FrameType.records.rawValue && payloads.count < 4 { payloads.append((position, payload)) }
            if header.typeByte == FrameType.commit.rawValue { firstCommitEnd = payload.upperBound }
            position = payload.upperBound
        }
        #expect(payloads.count == 4)
        let cut = Array(original[..<(try #require(firstCommitEnd))])
        let copy = "/damaged.seg"
        var refused = 0
        for (headerAt, payload) in payloads {
            for offset in payload {
                for change: UInt8 in [0x01, 0x80] {
                    var bytes = cut
                    bytes[offset] ^= change
                    let crc = FrameCodec.checksum(header: Array(bytes[headerAt..<headerAt + Format.frameHeaderSize]), payload: Array(bytes[payload]))
                    withUnsafeBytes(of: crc.littleEndian) { for i in 0..<4 { bytes[headerAt + 4 + i] = $0[i] } }
                    let file = try fs.open(copy, mode: .create)
                    try file.truncate(to: 0)
                    try file.write(bytes, at: 0)
                    let scanner = SegmentScanner(file: file, segmentID: id, statistics: nil)
                    var decoded: [(UInt64, UInt64, RecordLocation)] = []
                    let full = try scanner.scan(collect: false, provisional: true) { records in
                        for r in records { decoded.append((r.record.key.rawValue, r.record.sequence, r.location)) }
                    }
                    var skimmed: [(UInt64, UInt64, RecordLocation)] = []
                    let headers = try scanner.scanHeaders { records, _ in
                        for r in records { skimmed.append((r.header.key.rawValue, r.header.sequence, r.location)) }
                    }
                    try file.close()
                    let at = "byte \(offset) ^ \(change)"
                    #expect(full.damage?.offset == headers.damage?.offset, "\(at): \(String(describing: full.damage)) / \(String(describing: headers.damage))")
                    #expect(full.damageIsDefinite == headers.damageIsDefinite && full.validEnd == headers.validEnd && full.recordBytes == headers.recordBytes, "\(at)")
                    #expect(decoded.elementsEqual(skimmed) { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }, "\(at)")
                    if full.damage != nil { refused += 1 }
                }
            }
        }
        // Most changes are to values, which no scan can tell; those to lengths, kinds,
        // counts and blob references are refused.
        #expect(refused > 20)
    }
}
