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
}
