import Testing
import Logging
import StrataTestSupport
@testable import StrataLog

/// Single-field edits of segments, index files and blob references with their checksums
/// recomputed: none may trap ("arithmetic overflow", "Not enough bits") or lose
/// acknowledged data without an error; each is an error naming the file, or is
/// repaired without loss.
@Suite struct FieldEditTests {
    /// Uncompressed records so that fields sit at known offsets; two sealed segments
    /// with index files and an active one.
    static var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 1500
        options.compressRecords = false
        return options
    }

    /// Ten transactions of five keys (sequences 1…10), each value naming its version.
    static func makeStore(_ path: String) throws -> [UInt64: [UInt8]] {
        let store = try LogStore.open(at: path, options: options, logger: .quiet)
        defer { try? store.close() }
        return try ManifestCounterTests.fill(store, transactions: 10)
    }

    static func sealedIDs(_ path: String) throws -> [UInt32] {
        try StoreSurgery.manifest(path).segments.filter { $0.state == .sealed }.map(\.id)
    }

    static func activeID(_ path: String) throws -> UInt32 {
        try #require(try StoreSurgery.manifest(path).activeSegment?.id)
    }

    static func expectCorruptOpen(_ path: String, file: String? = nil, _ comment: Comment? = nil) {
        let error = #expect(throws: StrataError.self, comment) { _ = try LogStore.open(at: path, logger: .quiet) }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        if let file { #expect(error?.path == file, "\(String(describing: error))") }
    }

    // MARK: Traps

    @Test func blobReferenceOfMaximalLengthOrOffsetIsDamageNotATrap() throws {
        for (field, value) in [(12, UInt64.max), (4, UInt64.max)] { // length, offset within the reference
            let dir = try TemporaryDirectory("edit-blobref")
            defer { dir.remove() }
            do {
                let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
                let ref = try store.writeBlob(LogFixtures.noise(300, seed: 4))
                var batch = WriteBatch()
                batch.put(RecordKey(1), value: [1, 2, 3], blobs: [ref])
                try store.commit(batch)
                var next = WriteBatch()
                for key in UInt64(2)...4 { next.put(RecordKey(key), value: [UInt8(key)]) }
                try store.commit(next)
                try store.commit(next)
                try store.close()
            }
            let segment = StoreSurgery.segment(dir.path, try Self.activeID(dir.path))
            try StoreSurgery.editFrame(segment, 0) { payload in
                let record = (try? StoreSurgery.recordOffsets(payload))?.first ?? 4
                StoreSurgery.putU64(value, at: record + 25 + 3 + field, in: &payload)
            }
            Self.expectCorruptOpen(dir.path, file: segment)
        }
        // The public API takes a reference from a caller, too.
        let dir = try TemporaryDirectory("edit-blobref-api")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        let ref = try store.writeBlob(LogFixtures.noise(300, seed: 5))
        for bad in [BlobRef(file: ref.file, offset: ref.offset, length: .max, checksum: ref.checksum),
                    BlobRef(file: ref.file, offset: .max, length: ref.length, checksum: ref.checksum),
                    BlobRef(file: ref.file, offset: ref.offset, length: 1 << 33, checksum: ref.checksum)] {
            let error = #expect(throws: StrataError.self) { _ = try store.readBlob(bad) }
            #expect(error?.code == .corrupt)
            var batch = WriteBatch()
            batch.put(RecordKey(1), value: [], blobs: [bad])
            if bad.length > Format.maxBlobLength || bad.offset > Format.maxBlobOffset {
                let refused = #expect(throws: StrataError.self) { try store.commit(batch) }
                #expect(refused?.code == .invalidArgument)
            }
        }
        try store.close()
    }

    /// An index file whose footer (CRC recomputed) has recordBytes, a sequence or a
    /// handle out of range is not used: it is rebuilt from the segment and everything
    /// reads back. (Format 2's counterpart of the format-1 hint checks.)
    @Test(arguments: ["recordBytes", "minSequence", "maxSequence", "dataFence", "entryCount"])
    func indexFooterFieldsOutOfRangeAreNotTrusted(field: String) throws {
        let dir = try TemporaryDirectory("edit-index")
        defer { dir.remove() }
        let expected = try Self.makeStore(dir.path)
        let sealed = try #require(try Self.sealedIDs(dir.path).first)
        let path = StorePaths(dir.path).indexFile(sealed)
        var bytes = try FileBytes.read(path)
        let at = bytes.count - IndexFooter.size
        var footer = try IndexFooter.decode(Array(bytes[at...]), fileSize: Int64(bytes.count), path: path)
        switch field {
        case "recordBytes": footer.recordBytes = .max
        case "minSequence": footer.minSequence += 1
        case "maxSequence": footer.maxSequence = .max
        case "dataFence": footer.dataFence.offset = .max
        default: footer.entryCount = .max
        }
        bytes.replaceSubrange(at..., with: footer.encoded())
        try FileBytes.write(bytes, to: path)
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        try ManifestCounterTests.expectAll(store, expected)
        #expect(store.lastSequence == 10)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        #expect(try store.commit(batch) == 11)
        try store.compact(force: true)
        try store.close()
        let reopened = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(try reopened.verify().isSound)
        try reopened.close()
    }

    // MARK: Silent losses

    /// A sealed segment cut after its first transaction and sealed again with its
    /// seal frame (1…4 in the manifest and the seal, 1 in the file): it must not open
    /// clean without the other transactions' keys. (A seal rewritten to say 1…1 cannot
    /// be told apart from a compaction output whose newest transactions were all
    /// dropped, whose manifest entry keeps a higher max: FORMAT.md §4.2.)
    @Test func aSealedSegmentCutAndResealedIsRefused() throws {
        let dir = try TemporaryDirectory("edit-cut")
        defer { dir.remove() }
        _ = try Self.makeStore(dir.path)
        let sealed = try #require(try Self.sealedIDs(dir.path).first)
        let segment = StoreSurgery.segment(dir.path, sealed)
        let frames = try StoreSurgery.frames(segment)
        let firstCommit = try #require(frames.firstIndex { $0.type == FrameType.commit.rawValue })
        let sealFrame = StoreSurgery.encode(type: FrameType.seal.rawValue, flags: 0, payload: try #require(frames.last).payload)
        try StoreSurgery.rewriteFrames(segment, keep: { i, _ in i <= firstCommit }, appending: [sealFrame])
        // Its hint locates records past the cut end: not used, the segment is scanned.
        Self.expectCorruptOpen(dir.path, file: segment)
        try StoreSurgery.removeHints(dir.path)
        Self.expectCorruptOpen(dir.path, file: segment)
    }

    /// The same cut with a seal that agrees with what is left (the segment's first
    /// transaction only), its index file present or removed: the sequence checks pass
    /// (a compaction output may have a manifest max above its transactions), but the
    /// rebuilt index holds fewer live bytes than the manifest counts, so it does not
    /// open clean with the other transactions' keys gone.
    @Test(arguments: [false, true])
    func aSealedSegmentCutAndResealedToAgreeIsRefused(removeIndexFiles: Bool) throws {
        let dir = try TemporaryDirectory("edit-cut-agree")
        defer { dir.remove() }
        _ = try Self.makeStore(dir.path)
        let sealed = try #require(try Self.sealedIDs(dir.path).first)
        let segment = StoreSurgery.segment(dir.path, sealed)
        let frames = try StoreSurgery.frames(segment)
        let firstCommit = try #require(frames.firstIndex { $0.type == FrameType.commit.rawValue })
        let kept = StoreSurgery.u64(frames[firstCommit].payload, at: 0)
        var seal = ByteWriter(capacity: 16)
        seal.u64(kept)
        seal.u64(kept)
        try StoreSurgery.rewriteFrames(segment, keep: { i, _ in i <= firstCommit },
                                       appending: [StoreSurgery.encode(type: FrameType.seal.rawValue, flags: 0, payload: seal.bytes)])
        if removeIndexFiles { try StoreSurgery.removeHints(dir.path) }
        Self.expectCorruptOpen(dir.path, file: segment)
    }

    /// Index files removed from an intact store are rebuilt, and the live-bytes check
    /// that refuses a cut segment finds nothing wrong (no false alarm on derived data).
    @Test func removedIndexFilesOfAnIntactStoreAreRebuiltSilently() throws {
        let dir = try TemporaryDirectory("edit-index-gone")
        defer { dir.remove() }
        let expected = try Self.makeStore(dir.path)
        do {
            let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
            for key in expected.keys.sorted().prefix(7) {
                var batch = WriteBatch()
                batch.delete(RecordKey(key))
                _ = try store.commit(batch)
            }
            _ = try store.compact(force: true)
            try store.close()
        }
        try StoreSurgery.removeHints(dir.path)
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? store.close() }
        let remaining = expected.filter { !expected.keys.sorted().prefix(7).contains($0.key) }
        try ManifestCounterTests.expectAll(store, remaining)
        #expect(try store.verify().problems.isEmpty)
    }

    /// A seal frame whose sequences were changed, hint intact: open trusts the hint
    /// and does not read the segment; verify reads it and reports the seal.
    @Test func verifyChecksTheSealAgainstTheTransactions() throws {
        let dir = try TemporaryDirectory("edit-seal")
        defer { dir.remove() }
        let expected = try Self.makeStore(dir.path)
        let sealed = try #require(try Self.sealedIDs(dir.path).first)
        let segment = StoreSurgery.segment(dir.path, sealed)
        let last = try StoreSurgery.frames(segment).count - 1
        try StoreSurgery.editFrame(segment, last) { StoreSurgery.putU64(StoreSurgery.u64($0, at: 8) + 1, at: 8, in: &$0) }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        try ManifestCounterTests.expectAll(store, expected)
        let report = try store.verify()
        #expect(report.problems.contains { $0.path == segment && $0.message.contains("seal frame records") }, "\(report)")
        try store.close()
    }

    @Test func aSealedSegmentThatLostItsFirstTransactionIsRefused() throws {
        let dir = try TemporaryDirectory("edit-cut-head")
        defer { dir.remove() }
        _ = try Self.makeStore(dir.path)
        let sealed = try #require(try Self.sealedIDs(dir.path).first)
        let segment = StoreSurgery.segment(dir.path, sealed)
        let frames = try StoreSurgery.frames(segment)
        let firstCommit = try #require(frames.firstIndex { $0.type == FrameType.commit.rawValue })
        let scanned = frames.dropFirst(firstCommit + 1).filter { $0.type == FrameType.commit.rawValue }.map { StoreSurgery.u64($0.payload, at: 0) }
        var seal = ByteWriter(capacity: 16)
        seal.u64(try #require(scanned.min()))
        seal.u64(try #require(scanned.max()))
        try StoreSurgery.rewriteFrames(segment, keep: { i, f in i > firstCommit && f.type != FrameType.seal.rawValue },
                                       appending: [StoreSurgery.encode(type: FrameType.seal.rawValue, flags: 0, payload: seal.bytes)])
        try StoreSurgery.removeHints(dir.path)
        Self.expectCorruptOpen(dir.path, file: segment)
    }

    /// An old version given a newer sequence (records and commit, CRCs recomputed)
    /// must not win over the real newest version. In a sealed segment its sequence
    /// leaves the manifest's range; in the active segment it breaks the order.
    @Test(arguments: [true, false])
    func reSequencedTransactionsAreRefused(sealed: Bool) throws {
        let dir = try TemporaryDirectory("edit-resequence")
        defer { dir.remove() }
        do {
            var options = Self.options
            if !sealed { options.segmentSizeLimit = 1 << 20 }
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            for version in 0..<12 {
                var batch = WriteBatch()
                for key in UInt64(0)..<5 { batch.put(RecordKey(key), value: LogFixtures.value(key, version: version, size: 60)) }
                try store.commit(batch)
            }
            try store.close()
        }
        let id = sealed ? try #require(try Self.sealedIDs(dir.path).first) : try Self.activeID(dir.path)
        let segment = StoreSurgery.segment(dir.path, id)
        let frames = try StoreSurgery.frames(segment)
        let firstCommit = try #require(frames.firstIndex { $0.type == FrameType.commit.rawValue })
        let newSequence: UInt64 = 100
        for index in 0..<firstCommit {
            try StoreSurgery.editFrame(segment, index) { payload in
                for record in (try? StoreSurgery.recordOffsets(payload)) ?? [] { StoreSurgery.putU64(newSequence, at: record + 9, in: &payload) }
            }
        }
        try StoreSurgery.editFrame(segment, firstCommit) { StoreSurgery.putU64(newSequence, at: 0, in: &$0) }
        try StoreSurgery.removeHints(dir.path)
        Self.expectCorruptOpen(dir.path, file: segment)
    }

    /// A value length shortened by three, CRC recomputed: the last record then leaves
    /// bytes after it, which is damage: the value must not read back short without an
    /// error.
    @Test func bytesAfterTheLastRecordOfABlockAreDamage() throws {
        let dir = try TemporaryDirectory("edit-trailing")
        defer { dir.remove() }
        let expected = try Self.makeStore(dir.path)
        let sealed = try #require(try Self.sealedIDs(dir.path).first)
        let segment = StoreSurgery.segment(dir.path, sealed)
        var lastKey: UInt64 = 0
        try StoreSurgery.editFrame(segment, 0) { payload in
            guard let record = (try? StoreSurgery.recordOffsets(payload))?.last else { return }
            lastKey = StoreSurgery.u64(payload, at: record + 1)
            StoreSurgery.putU32(StoreSurgery.u32(payload, at: record + 17) - 3, at: record + 17, in: &payload)
        }
        // Through the index file, open does not read the segment: the read must refuse it.
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        let error = #expect(throws: StrataError.self) { _ = try store.get(RecordKey(lastKey)) }
        #expect(error?.code == .corrupt)
        #expect(error?.path == segment)
        #expect(throws: StrataError.self) { _ = try store.get([RecordKey(lastKey)]) }
        #expect(expected[lastKey] != nil)
        #expect(!(try store.verify().isSound))
        try store.close()
        // Scanned, the block is damage.
        try StoreSurgery.removeHints(dir.path)
        Self.expectCorruptOpen(dir.path, file: segment)
    }

    /// A put turned into a tombstone in the segment while the index says put: `get`
    /// must not return the tombstone as if it were the value.
    @Test func getChecksTheKindOfTheRecord() throws {
        let dir = try TemporaryDirectory("edit-kind")
        defer { dir.remove() }
        _ = try Self.makeStore(dir.path)
        let sealed = try #require(try Self.sealedIDs(dir.path).first)
        let segment = StoreSurgery.segment(dir.path, sealed)
        var key: UInt64 = 0
        try StoreSurgery.editFrame(segment, 0) { payload in
            guard let record = (try? StoreSurgery.recordOffsets(payload))?.first else { return }
            key = StoreSurgery.u64(payload, at: record + 1)
            payload[record] = RecordKind.tombstone.rawValue
        }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        let error = #expect(throws: StrataError.self) { _ = try store.get(RecordKey(key)) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("tombstone") == true)
        #expect(throws: StrataError.self) { _ = try store.get([RecordKey(key)]) }
        try store.close()
    }

    /// A commit frame whose record count is off by one, followed by intact
    /// transactions — or as the last one: its checksum holds, so it is no torn tail.
    /// Open must not cut the log there and drop acknowledged transactions.
    @Test(arguments: [1, 0])
    func aCommitFrameOffByOneIsDamageNotATornTail(transactionsAfter: Int) throws {
        let dir = try TemporaryDirectory("edit-commit-count")
        defer { dir.remove() }
        do {
            let store = try LogStore.open(at: dir.path, options: Self.options, logger: .quiet)
            try ManifestCounterTests.fill(store, transactions: 1 + transactionsAfter, keysPer: 3)
            try store.close()
        }
        let segment = StoreSurgery.segment(dir.path, try Self.activeID(dir.path))
        let frames = try StoreSurgery.frames(segment)
        let commit = try #require(frames.firstIndex { $0.type == FrameType.commit.rawValue })
        try StoreSurgery.editFrame(segment, commit) { StoreSurgery.putU32(StoreSurgery.u32($0, at: 8) + 1, at: 8, in: &$0) }
        let size = try FileBytes.size(segment)
        Self.expectCorruptOpen(dir.path, file: segment)
        #expect(try FileBytes.size(segment) == size, "nothing was cut")
        var salvage = LogStoreOptions()
        salvage.salvageDamagedTail = true
        let store = try LogStore.open(at: dir.path, options: salvage, logger: .quiet)
        #expect(store.count == 0)
        try store.close()
    }

    /// A compressed block whose recorded raw length is one more or one less than what
    /// it decompresses to (CRC recomputed) is damage.
    @Test(arguments: [1, -1])
    func anLZ4RawLengthOffByOneIsDamage(delta: Int) throws {
        let dir = try TemporaryDirectory("edit-lz4")
        defer { dir.remove() }
        do {
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            for t in 0..<3 {
                var batch = WriteBatch()
                for k in UInt64(0)..<20 { batch.put(RecordKey(UInt64(t) * 20 + k), value: LogFixtures.value(k, size: 200)) }
                try store.commit(batch)
            }
            try store.close()
        }
        let segment = StoreSurgery.segment(dir.path, try Self.activeID(dir.path))
        let frames = try StoreSurgery.frames(segment)
        let compressed = try #require(frames.firstIndex { $0.type == FrameType.records.rawValue && $0.flags & FrameFlags.lz4 != 0 })
        try StoreSurgery.editFrame(segment, compressed) { payload in
            let raw = StoreSurgery.u32(payload, at: 0)
            StoreSurgery.putU32(delta > 0 ? raw + 1 : raw - 1, at: 0, in: &payload)
        }
        Self.expectCorruptOpen(dir.path, file: segment)
    }

    /// Counting intact commits after damage reads the rest of the segment a window at
    /// a time (a hostile file may hold gigabytes after it): a commit frame across a
    /// window's edge still counts, once.
    @Test func intactCommitsAreCountedAcrossWindows() throws {
        let dir = try TemporaryDirectory("edit-intact-windows")
        defer { dir.remove() }
        do {
            var options = Self.options
            options.segmentSizeLimit = 1 << 20
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            try ManifestCounterTests.fill(store, transactions: 50, keysPer: 2)
            try store.close()
        }
        let file = try POSIXFileSystem().open(StoreSurgery.segment(dir.path, try Self.activeID(dir.path)), mode: .readOnly)
        defer { try? file.close() }
        for chunk in [1, 7, 27, 28, 29, 100, 1 << 20] {
            #expect(try SegmentScanner.intactCommits(in: file, after: Int64(Format.segmentHeaderSize) - 1, chunkSize: chunk) == 50, "window \(chunk)")
        }
    }
}
