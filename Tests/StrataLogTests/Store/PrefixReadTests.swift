import Testing
import StrataTestSupport
@testable import StrataLog

/// Random reads decompress a frame only as far as the record they want ends, and the
/// cache keeps that prefix apart from whole frames. Whatever order reads come in —
/// a prefix first and a record past it next, a whole frame already cached, a scan
/// after random reads — each read must give its record's bytes.
@Suite struct PrefixReadTests {
    @Test func prefixesOfABlockAreItsFirstBytes() throws {
        var random = SplitMix(seed: 5)
        // Compressible but not uniform: runs of a few values.
        let raw = (0..<4_000).map { i in UInt8((i / 7 + Int(random.next() % 3)) % 11) }
        let compressed = try #require(raw.withUnsafeBytes { LZ4.compress($0) })
        for prefix in [0, 1, 17, 1_000, 2_048, 3_999] {
            let decoded = compressed.withUnsafeBytes { LZ4.decompress($0, rawLength: raw.count, prefix: prefix) }
            #expect(decoded == Array(raw[..<prefix]), "prefix \(prefix)")
        }
        // Reaching the end (or past it) is the whole block, checked for its length.
        #expect(compressed.withUnsafeBytes { LZ4.decompress($0, rawLength: raw.count, prefix: 4_000) } == raw)
        #expect(compressed.withUnsafeBytes { LZ4.decompress($0, rawLength: raw.count, prefix: 9_000) } == raw)
        // A block cut short cannot give a prefix it no longer holds.
        let cut = Array(compressed.prefix(compressed.count / 3))
        #expect(cut.withUnsafeBytes { LZ4.decompress($0, rawLength: raw.count, prefix: 3_500) } == nil)
    }

    @Test(arguments: [true, false])
    func readsInAnyOrderGiveTheirRecords(compress: Bool) throws {
        let dir = try TemporaryDirectory("prefix-reads")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.compressRecords = compress
        var expected: [UInt64: [UInt8]] = [:]
        do {
            let store = try LogStore.open(at: dir.path, options: options)
            var batch = WriteBatch()
            for key in UInt64(1)...600 {
                let value = LogFixtures.value(key, version: 0, size: 10 + Int(key % 90))
                batch.put(RecordKey(key), value: value)
                expected[key] = value
            }
            try store.commit(batch)
            try store.sealActiveSegment()
            try store.close()
        }
        var random = SplitMix(seed: compress ? 1 : 2)
        for round in 0..<6 {
            // A fresh cache each round: reads start from prefixes.
            let store = try LogStore.open(at: dir.path, options: options)
            defer { try? store.close() }
            var keys = Array(expected.keys)
            for i in keys.indices.reversed() { keys.swapAt(i, Int(random.next() % UInt64(i + 1))) }
            switch round % 3 {
            case 0:
                // One at a time, in random order: faults.
                for key in keys {
                    var seen: [UInt8]?
                    _ = try store.withRecord(RecordKey(key)) { seen = Array($0.value) }
                    #expect(seen == expected[key], "round \(round): \(key)")
                    #expect(try store.get(RecordKey(key))?.value == expected[key], "round \(round): \(key)")
                }
            case 1:
                // Ascending lists (later records of a frame after earlier ones), in pieces:
                // each frame decompressed at most twice (a prefix, then whole), not once
                // per record past the last prefix.
                let before = store.statistics.framesDecoded
                defer {
                    let frames = Set(expected.keys.compactMap { key in try? store.readIndex { try $0.index.entry(RecordKey(key)) }?.location.frameOffset })
                    #expect(store.statistics.framesDecoded - before <= 2 * frames.count,
                            "\(store.statistics.framesDecoded - before) frames decoded for \(frames.count) frames")
                }
                for chunk in stride(from: 0, to: keys.count, by: 50) {
                    let wanted = keys[chunk..<min(keys.count, chunk + 50)].sorted()
                    var seen: [UInt64: [UInt8]] = [:]
                    try store.visitRecords(wanted.map { RecordKey($0) }) { _, view in
                        seen[view.key.rawValue] = Array(view.value)
                        return true
                    }
                    #expect(seen == expected.filter { wanted.contains($0.key) }, "round \(round)")
                }
            default:
                // Random reads first (prefixes cached), then a scan of everything.
                for key in keys.prefix(100) { _ = try store.get(RecordKey(key)) }
                var seen: [UInt64: [UInt8]] = [:]
                try store.visitRecords(in: RecordKey(0)..<RecordKey(10_000)) { view in
                    seen[view.key.rawValue] = Array(view.value)
                    return true
                }
                #expect(seen == expected, "round \(round)")
            }
            if compress && round == 0 {
                // The reads did keep prefixes of compressed frames, not only whole ones.
                var prefixes = 0
                for key in keys {
                    let location = try #require(try store.readIndex { try $0.index.entry(RecordKey(key)) }?.location)
                    let prefix = BlockCache.Key(file: store.cacheNamespace | UInt64(location.segment),
                                                offset: UInt64(location.frameOffset) | LogStore.framePrefixFlag)
                    if let cached = store.blockCache.get(prefix) {
                        prefixes += 1
                        #expect(cached.count < Int(location.frameLength) * 8, "a prefix longer than any frame")
                    }
                }
                #expect(prefixes > 0, "no frame prefix was cached")
            }
        }
    }

    /// A list whose records share frames (an index's candidates) reads each frame once,
    /// as far as the last listed record in it ends: not to the first one's end and
    /// then again whole, and not past the last one.
    @Test func aListReadsEachFrameOnceAsFarAsItsLastRecord() throws {
        let dir = try TemporaryDirectory("prefix-list")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.path)
        defer { try? store.close() }
        var batch = WriteBatch()
        for key in UInt64(1)...600 { batch.put(RecordKey(key), value: LogFixtures.value(key, version: 0, size: 60)) }
        try store.commit(batch)
        try store.sealActiveSegment()
        let locations = try (UInt64(1)...600).map { key in
            try #require(try store.readIndex { try $0.index.entry(RecordKey(key)) }?.location)
        }
        // Every third key: most frames hold several of them.
        let wanted = stride(from: 0, to: 600, by: 3).map { $0 }
        let frames = Set(wanted.map { locations[$0].frameOffset })
        #expect(frames.count < wanted.count / 2)
        let before = store.statistics
        var seen = 0
        try store.visitRecords(wanted.map { RecordKey(UInt64($0 + 1)) }) { _, view in
            #expect(Array(view.value) == LogFixtures.value(view.key.rawValue, version: 0, size: 60))
            seen += 1
            return true
        }
        #expect(seen == wanted.count)
        #expect(store.statistics.framesDecoded - before.framesDecoded == frames.count)
        // What the cache kept of each frame is the prefix through its last wanted
        // record, or the whole frame when that record ends it.
        var prefixes = 0
        for frame in frames {
            let end = { (keys: [Int]) in keys.filter { locations[$0].frameOffset == frame }.map { Int(locations[$0].recordOffset + locations[$0].recordLength) }.max() ?? 0 }
            let through = end(wanted), whole = end(Array(0..<600))
            let key = BlockCache.Key(file: store.cacheNamespace | UInt64(locations[0].segment), offset: UInt64(frame))
            if through < whole {
                #expect(store.blockCache.get(BlockCache.Key(file: key.file, offset: key.offset | LogStore.framePrefixFlag))?.count == through)
                #expect(store.blockCache.get(key) == nil)
                prefixes += 1
            } else {
                #expect(store.blockCache.get(key)?.count == whole)
            }
        }
        #expect(prefixes > 0)
    }
}
