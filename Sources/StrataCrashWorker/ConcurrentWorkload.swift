import StrataTestSupport
import Foundation
import Logging
import Strata
import StrataLog

/// The workload of the group-commit crash tests: several writers at once, each
/// committing its own numbered sequence 1, 2, 3, … in order, so that what a killed
/// run leaves can be checked writer by writer (Tests/StrataLogTests/Crash/ConcurrentCrashTests,
/// Tests/StrataTests/Crash/ObjectWriteCrashTests). Everything is derived from the seed,
/// the writer and the number: the test recomputes what each commit wrote.
enum ConcurrentWorkload {
    // MARK: Engine (`concurrent` mode)

    /// Threads committing at once through `LogStore.commit`.
    static let threads = 8

    /// Thread `thread`'s `index`th key (index ≥ 1): the thread in the high half, so
    /// threads never share a key. Index 0 is the thread's head key, which every one of
    /// its commits rewrites to name itself: the commit's two records land together or not.
    static func key(thread: Int, index: UInt64) -> UInt64 {
        UInt64(thread + 1) << 32 | index
    }

    /// The thread and index of a workload key; nil for a key no thread writes.
    static func split(_ key: UInt64) -> (thread: Int, index: UInt64)? {
        let thread = Int(key >> 32) - 1
        guard thread >= 0, thread < threads else { return nil }
        return (thread, key & 0xFFFF_FFFF)
    }

    /// What commit `index` of `thread` writes: the size of its data value and the blob
    /// its data key references, if any (a sixth of the commits: group commit fsyncs
    /// blobs before the segment that points at them).
    struct Commit: Equatable, Sendable {
        var valueSize: Int
        var blob: CrashWorkload.BlobSpec?
    }

    static func commit(thread: Int, index: UInt64, seed: UInt64) -> Commit {
        var random = SeededRandom(seed: seed, stream: key(thread: thread, index: index), 0xC0C0)
        let valueSize = random.chance(10) ? random.int(in: 2_000...6_000) : random.int(in: ValueHeader.size...400)
        let blob = random.chance(16) ? CrashWorkload.BlobSpec(size: random.int(in: 1...20_000), compressible: random.chance(50)) : nil
        return Commit(valueSize: valueSize, blob: blob)
    }

    /// The data value of commit `index` of `thread`.
    static func value(thread: Int, index: UInt64, seed: UInt64) -> [UInt8] {
        CrashWorkload.value(seed: seed, transaction: index, key: key(thread: thread, index: index),
                            size: commit(thread: thread, index: index, seed: seed).valueSize)
    }

    /// The bytes of the blob commit `index` of `thread` references, when it has one.
    static func blob(thread: Int, index: UInt64, seed: UInt64) -> [UInt8]? {
        commit(thread: thread, index: index, seed: seed).blob.map {
            CrashWorkload.blob(seed: seed, transaction: index, key: key(thread: thread, index: index), index: 0, spec: $0)
        }
    }

    /// The head value commit `index` of `thread` writes: a bare header naming it.
    static func headValue(thread: Int, index: UInt64) -> [UInt8] {
        ValueHeader(transaction: index, key: key(thread: thread, index: 0), size: ValueHeader.size).encoded()
    }

    /// The last commit of each thread a store holds, read from the head keys.
    static func heads(in store: LogStore) throws -> [UInt64] {
        try (0..<threads).map { thread in
            guard let record = try store.get(RecordKey(key(thread: thread, index: 0))) else { return 0 }
            guard let header = ValueHeader(decoding: record.value) else {
                throw WorkerFailure("thread \(thread)'s head key holds \(record.value.count) bytes that are no workload value")
            }
            return header.transaction
        }
    }

    /// The crash tests' tiny segments, blob files and overlays: under eight committers,
    /// segment rolls (which wait for the fsync in flight) land among the waiting commits.
    static func engineOptions() -> LogStoreOptions { CrashWorkload.options(mode: .write) }

    // MARK: Objects (`objects` mode)

    /// How many `ObjectStore.write` tasks run at once on a store of `seed`: 16 to 64.
    static func lanes(seed: UInt64) -> Int { 16 + Int(seed % 49) }

    /// Items hold a lane's numbered writes; a lane's one Lane object counts them, and
    /// every write updates it along with its insert.
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Item") {
                Attribute("lane", .int64)
                Attribute("index", .int64)
                Attribute("name", .string)
                Attribute("payload", .binary, optional: true, externalStorage: true)
            }
            Entity("Lane") {
                Attribute("number", .int64)
                Attribute("count", .int64)
            }
        }
    }

    /// Small segments, blob files and blocks; payloads from 1 KiB are stored as blobs.
    static func objectOptions(logger: Logger = CrashWorker.logger()) -> StoreOptions {
        var options = StoreOptions()
        options.log.segmentSizeLimit = 32 << 10
        options.log.blobFileSizeLimit = 256 << 10
        options.log.blockSize = 4 << 10
        options.log.overlayEntryLimit = 48
        options.externalStorageThreshold = 1 << 10
        options.logger = logger
        return options
    }

    /// Item `index` of `lane`'s name.
    static func itemName(lane: Int, index: Int, seed: UInt64) -> String {
        "lane \(lane) item \(index) of \(seed)"
    }

    /// Item `index` of `lane`'s payload: nil for one in seven, a blob-sized one for
    /// one in five of the others, a small inline one otherwise.
    static func payload(lane: Int, index: Int, seed: UInt64) -> Data? {
        var random = SeededRandom(seed: seed, stream: UInt64(lane) << 32 | UInt64(index), 0x0B1E)
        if random.chance(14) { return nil }
        let size = random.chance(20) ? random.int(in: 1_500...8_000) : random.int(in: 0...600)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        while bytes.count < size {
            let word = random.next()
            for i in 0..<min(8, size - bytes.count) { bytes.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i)))) }
        }
        return Data(bytes)
    }
}
