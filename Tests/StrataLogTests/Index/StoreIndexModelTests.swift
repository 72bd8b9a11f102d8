import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// The on-disk index (FORMAT.md §7) checked against a plain dictionary: random commits,
/// overwrites, deletes and terms, with seals, compactions, reopens, damaged and missing
/// index files in between. After every step each read the engine offers must agree
/// with the model: `get`, `contains`, `sequence`, key ranges and pages, `lastKey`,
/// `count` and `count(in:)`, term equality and ranges.
@Suite struct StoreIndexModelTests {
    /// What the model keeps per live key: its value and its terms.
    struct Version: Equatable {
        var value: [UInt8]
        var terms: [IndexTerm]
    }

    static func options() -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 6 << 10
        options.overlayEntryLimit = 24
        options.durability = .none
        options.blockCacheBytes = 64 << 10
        return options
    }

    /// Keys in three 16-bit prefixes (entities), serials that grow, like the object layer's.
    static func key(_ random: inout SeededRandom) -> RecordKey {
        let prefix = UInt64(random.int(in: 1...3))
        return RecordKey(prefix << 48 | UInt64(random.int(in: 0...180)))
    }

    static func terms(for key: RecordKey, _ random: inout SeededRandom) -> [IndexTerm] {
        var terms: [IndexTerm] = []
        // Index 1: a "department" reference shared by many keys; index 2: a unique-ish value.
        if random.chance(80) { terms.append(IndexTerm(index: 1, value: [UInt8(random.int(in: 0...5))])) }
        if random.chance(50) { terms.append(IndexTerm(index: 2, value: Array(String(random.int(in: 0...400)).utf8))) }
        return terms
    }

    func check(_ store: LogStore, _ model: [RecordKey: Version], _ random: inout SeededRandom, step: String) throws {
        let live = model.keys.sorted()
        #expect(try store.keys() == live, "\(step)")
        #expect(store.count == live.count, "\(step)")
        for prefix in UInt64(1)...3 {
            let range = RecordKey(prefix << 48 | 1)..<RecordKey((prefix + 1) << 48)
            let expected = live.filter { range.contains($0) }
            #expect(try store.keys(in: range) == expected, "\(step) prefix \(prefix)")
            #expect(try store.count(in: range) == expected.count, "\(step) prefix \(prefix)")
            #expect(try store.lastKey(in: range) == expected.last, "\(step) prefix \(prefix)")
            // Paging in small pages gives the same keys.
            var paged: [RecordKey] = []
            var after: RecordKey?
            while true {
                let page = try store.keys(in: range, after: after, limit: 7)
                guard let last = page.last else { break }
                paged += page
                after = last
            }
            #expect(paged == expected, "\(step) paged prefix \(prefix)")
        }
        let mid = RecordKey(2 << 48 | 60)..<RecordKey(2 << 48 | 120)
        #expect(try store.keys(in: mid) == live.filter { mid.contains($0) }, "\(step)")
        #expect(try store.count(in: mid) == live.filter { mid.contains($0) }.count, "\(step)")
        for _ in 0..<40 {
            let key = Self.key(&random)
            #expect(try store.get(key)?.value == model[key]?.value, "\(step) \(key)")
            #expect(try store.contains(key) == (model[key] != nil), "\(step) \(key)")
            #expect(try (store.sequence(of: key) != nil) == (model[key] != nil), "\(step) \(key)")
        }
        let records = try store.get(live)
        #expect(records.map { $0?.value } == live.map { model[$0]?.value }, "\(step)")
        for department in UInt8(0)...5 {
            let term = IndexTerm(index: 1, value: [department])
            let expected = live.filter { model[$0]?.terms.contains(term) ?? false }
            #expect(try store.keys(for: term) == expected, "\(step) department \(department)")
        }
        let rangeExpected = live.filter { key in
            model[key]?.terms.contains { $0.index == 1 && $0.value[0] >= 2 && $0.value[0] < 4 } ?? false
        }
        #expect(try store.keys(index: 1, from: [2], through: [4], lowerInclusive: true, upperInclusive: false) == rangeExpected, "\(step)")
        let unique = IndexTerm(index: 2, value: Array(String(random.int(in: 0...400)).utf8))
        #expect(try store.keys(for: unique) == live.filter { model[$0]?.terms.contains(unique) ?? false }, "\(step)")
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func indexAgreesWithADictionary(seed: UInt64) throws {
        let dir = try TemporaryDirectory("index-model")
        defer { dir.remove() }
        var random = SeededRandom(seed: seed)
        var model: [RecordKey: Version] = [:]
        var store = try LogStore.open(at: dir.path, options: Self.options(), logger: .quiet)
        var version = 0
        for step in 0..<90 {
            var batch = WriteBatch()
            var staged = model
            for _ in 0..<random.int(in: 1...12) {
                let key = Self.key(&random)
                if random.chance(20) {
                    batch.delete(key)
                    staged[key] = nil
                } else {
                    version += 1
                    let value = LogFixtures.value(key.rawValue, version: version, size: random.int(in: 10...90))
                    let terms = Self.terms(for: key, &random)
                    batch.put(key, value: value, terms: terms)
                    staged[key] = Version(value: value, terms: terms)
                }
            }
            try store.commit(batch)
            model = staged
            switch random.int(in: 0...19) {
            case 0, 1:
                try store.sealActiveSegment()
            case 2:
                try store.compact(force: true)
            case 3:
                try store.compact()
            case 4, 5:
                try store.close()
                store = try LogStore.open(at: dir.path, options: Self.options(), logger: .quiet)
            case 6:
                // A damaged or missing index file: rebuilt from its segment, never an error.
                try store.close()
                let names = try FileManager.default.contentsOfDirectory(atPath: dir.appending("index")).filter { $0.hasSuffix(".idx") }.sorted()
                if let name = names.isEmpty ? nil : names[random.int(in: 0...(names.count - 1))] {
                    let path = dir.appending("index/" + name)
                    if random.chance(50) {
                        try FileManager.default.removeItem(atPath: path)
                    } else {
                        try FileBytes.flip(path, at: random.int(in: 0...(try FileBytes.size(path) - 1)))
                    }
                }
                store = try LogStore.open(at: dir.path, options: Self.options(), logger: .quiet)
            default:
                break
            }
            if step % 3 == 0 || step == 89 { try check(store, model, &random, step: "seed \(seed) step \(step)") }
        }
        let report = try store.verify()
        #expect(report.isSound, "\(report)")
        // The counters the manifest keeps survive a reopen and match a recount.
        let usage = store.usage
        try store.close()
        let reopened = try LogStore.open(at: dir.path, options: Self.options(), logger: .quiet)
        #expect(reopened.count == model.count)
        #expect(reopened.usage == usage)
        try check(reopened, model, &random, step: "seed \(seed) final")
        try reopened.close()
    }

    /// A read-only open writes nothing: a missing index file is rebuilt in memory.
    @Test func readOnlyOpenRebuildsAMissingIndexFileInMemory() throws {
        let dir = try TemporaryDirectory("index-readonly")
        defer { dir.remove() }
        var random = SeededRandom(seed: 9)
        var model: [RecordKey: Version] = [:]
        let store = try LogStore.open(at: dir.path, options: Self.options(), logger: .quiet)
        for _ in 0..<30 {
            var batch = WriteBatch()
            for _ in 0..<5 {
                let key = Self.key(&random)
                let value = LogFixtures.value(key.rawValue, size: 40)
                let terms = Self.terms(for: key, &random)
                batch.put(key, value: value, terms: terms)
                model[key] = Version(value: value, terms: terms)
            }
            try store.commit(batch)
        }
        try store.close()
        try FileManager.default.removeItem(atPath: dir.appending("index/000001.idx"))
        var options = Self.options()
        options.readOnly = true
        let reader = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        try check(reader, model, &random, step: "read-only")
        try reader.close()
        #expect(!FileManager.default.fileExists(atPath: dir.appending("index/000001.idx")))
    }

    /// Open reads the manifest and the index files' footers, nothing per object: the
    /// bytes it reads do not grow with the number of keys in sealed segments.
    @Test func openReadsFootersNotEntries() throws {
        func bytesReadAtOpen(keys: Int) throws -> Int {
            let dir = try TemporaryDirectory("index-open")
            defer { dir.remove() }
            var options = LogStoreOptions()
            options.durability = .none
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            var batch = WriteBatch()
            for k in 0..<keys { batch.put(RecordKey(1 << 48 | UInt64(k + 1)), value: LogFixtures.value(UInt64(k), size: 30), terms: [IndexTerm(index: 1, value: [UInt8(k % 7)])]) }
            try store.commit(batch)
            try store.sealActiveSegment()
            try store.close()
            let counting = CountingFileSystem()
            let reopened = try LogStore.open(at: dir.path, options: options, fileSystem: counting, logger: .quiet)
            #expect(reopened.count == keys)
            #expect(try reopened.count(in: RecordKey(1 << 48 | 1)..<RecordKey(2 << 48)) == keys)
            let read = counting.bytesRead.withLock { $0 }
            try reopened.close()
            return read
        }
        let small = try bytesReadAtOpen(keys: 100)
        let large = try bytesReadAtOpen(keys: 20_000)
        #expect(large == small, "open read \(small) bytes for 100 keys, \(large) for 20,000")
    }

    /// A store of one sealed transaction, a 30-byte value for each serial of entity 1,
    /// reopened through a file system that counts the bytes read, with a block cache
    /// (32 KiB) too small for the large blocks of such a segment's index file.
    static func reopenedAfterOneTransaction(in dir: TemporaryDirectory, serials: some Sequence<UInt64>) throws
        -> (LogStore, CountingFileSystem, LogStoreOptions) {
        var options = LogStoreOptions()
        options.durability = .none
        options.blockCacheBytes = 32 << 10
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        var batch = WriteBatch()
        for k in serials { batch.put(RecordKey(1 << 48 | k), value: LogFixtures.value(k, size: 30)) }
        try store.commit(batch)
        try store.sealActiveSegment()
        try store.close()
        let counting = CountingFileSystem()
        return (try LogStore.open(at: dir.path, options: options, fileSystem: counting, logger: .quiet), counting, options)
    }

    /// One transaction of many keys makes a segment whose Bloom filter is larger than the
    /// block cache takes: lookups answer from the data fence and blocks instead of
    /// reading the whole filter from disk each time, and stay right.
    @Test func aFilterTooBigForTheCacheIsNotReadAtEveryLookup() throws {
        let dir = try TemporaryDirectory("index-big-filter")
        defer { dir.remove() }
        // Odd serials only: the even ones are absent yet inside the file's key range.
        let (reopened, counting, options) = try Self.reopenedAfterOneTransaction(in: dir, serials: stride(from: UInt64(1), through: 40_000, by: 2))
        let filterBytes = reopened.state.withLock { $0.index.files.first?.footer.filter.length } ?? 0
        #expect(filterBytes > UInt64(options.blockCacheBytes / 4), "the test needs a filter the cache refuses")
        let before = counting.bytesRead.withLock { $0 }
        var random = SeededRandom(seed: 5)
        for _ in 0..<200 {
            let k = UInt64(random.int(in: 1...40_000))
            let record = try reopened.get(RecordKey(1 << 48 | k))
            #expect(record?.value == (k % 2 == 1 ? LogFixtures.value(k, size: 30) : nil), "key \(k)")
        }
        let read = counting.bytesRead.withLock { $0 } - before
        #expect(UInt64(read) < 200 * filterBytes / 2, "200 lookups read \(read) bytes; the filter is \(filterBytes)")
        try reopened.close()
    }

    /// A commit of many keys that replace versions in a file whose data fence is larger
    /// than the block cache takes (a migration's pass keeps a small cache) reads that
    /// fence once, not once per key: a bulk chunk of a uniqueness build over two million
    /// records read a fence per record.
    @Test func aCommitOfManyKeysReadsATooLargeFenceOnce() throws {
        let dir = try TemporaryDirectory("index-big-fence")
        defer { dir.remove() }
        let (reopened, counting, options) = try Self.reopenedAfterOneTransaction(in: dir, serials: UInt64(1)...60_000)
        let (fenceBytes, blockBytes) = reopened.state.withLock { s in
            (s.index.files.first?.footer.dataFence.length ?? 0, s.index.files.first?.footer.dataFence.offset ?? 0)
        }
        #expect(fenceBytes > UInt64(options.blockCacheBytes / 4), "the test needs a fence the cache refuses")
        let before = counting.bytesRead.withLock { $0 }
        var overwrite = WriteBatch()
        for k in stride(from: UInt64(7), through: 60_000, by: 30) { overwrite.put(RecordKey(1 << 48 | k), value: LogFixtures.value(k + 1, size: 30)) }
        try reopened.commit(overwrite)
        let read = counting.bytesRead.withLock { $0 } - before
        // Each data block is read once at most (the keys come in order); the fence once
        // per lookup would be 2,000 of them.
        #expect(UInt64(read) < blockBytes + 20 * fenceBytes, "a commit of 2,000 keys read \(read) bytes; blocks \(blockBytes), fence \(fenceBytes)")
        for k in [UInt64(7), 37, 59_977, 8] {
            #expect(try reopened.get(RecordKey(1 << 48 | k))?.value == LogFixtures.value(k % 30 == 7 ? k + 1 : k, size: 30), "key \(k)")
        }
        #expect(reopened.count == 60_000)
        try reopened.close()
    }
}

/// POSIX files, counting the bytes read through them.
final class CountingFileSystem: FileSystemWrapper {
    let base: any FileSystem = POSIXFileSystem()
    let bytesRead = Locked(0)

    func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile { CountingFile(try base.open(path, mode: mode), bytesRead) }
}

final class CountingFile: StorageFileWrapper {
    let base: any StorageFile
    let counter: Locked<Int>
    init(_ base: any StorageFile, _ counter: Locked<Int>) {
        self.base = base
        self.counter = counter
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let n = try base.read(into: buffer, at: offset)
        counter.withLock { $0 += n }
        return n
    }
}
