import StrataTestSupport
import StrataLog

/// The deterministic workload of the crash tests (Tests/StrataLogTests/Crash): what
/// transaction `n` of a run with `seed` writes. The worker commits transactions
/// 1, 2, 3, … in order; the test recomputes them to know the exact state after any
/// prefix, which is what the crash oracle compares a recovered store against.
enum CrashWorkload {
    /// Keys 1…keyCount are data; key 0 is the counter every transaction writes last,
    /// so a recovered store names the last transaction it holds.
    static let keyCount: UInt64 = 200
    static let counterKey = RecordKey(0)

    /// A blob a put references: its size and whether its bytes compress (LZ4 path) or not.
    struct BlobSpec: Equatable, Sendable {
        var size: Int
        var compressible: Bool
    }

    enum Operation: Equatable, Sendable {
        case put(key: UInt64, valueSize: Int, blobs: [BlobSpec])
        case delete(key: UInt64)
    }

    /// Transaction `n` (n ≥ 1): 2–10 distinct data keys, about a fifth of them deleted,
    /// then the counter. Sizes vary so that a transaction often spans several record
    /// blocks (small `blockSize`), and segments and blob files roll every few commits.
    static func transaction(_ n: UInt64, seed: UInt64) -> [Operation] {
        var random = SeededRandom(seed: seed, stream: n)
        var keys: [UInt64] = []
        let wanted = random.int(in: 2...10)
        while keys.count < wanted {
            let key = 1 + random.next() % keyCount
            if !keys.contains(key) { keys.append(key) }
        }
        var operations: [Operation] = []
        for key in keys {
            if random.chance(20) {
                operations.append(.delete(key: key))
                continue
            }
            let valueSize = random.chance(10) ? random.int(in: 2_000...9_000) : random.int(in: ValueHeader.size...600)
            var blobs: [BlobSpec] = []
            if random.chance(30) {
                for _ in 0..<random.int(in: 1...2) {
                    let roll = random.int(in: 0...99)
                    let size = roll < 20 ? random.int(in: 0...64) : roll < 75 ? random.int(in: 200...4_000) : random.int(in: 8_000...40_000)
                    blobs.append(BlobSpec(size: size, compressible: random.chance(50)))
                }
            }
            operations.append(.put(key: key, valueSize: valueSize, blobs: blobs))
        }
        operations.append(.put(key: counterKey.rawValue, valueSize: ValueHeader.size, blobs: []))
        return operations
    }

    /// Options both sides use: tiny segments, overlays, blob files and blocks so that rolls,
    /// blob-file rolls, multi-frame transactions and multi-group compactions all
    /// happen within a few hundred milliseconds of writing.
    static func options(mode: CrashWorker.Mode = .write) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 32 << 10
        options.blobFileSizeLimit = 256 << 10
        options.blockSize = 4 << 10
        options.compactionBatchBytes = 64 << 10
        // Rolls every few dozen keys as well: each writes an index file (FORMAT.md §7.7),
        // so kills land while index files are written, not only while segments are.
        options.overlayEntryLimit = 48
        // Chunked commits (the `bulk` mode) spill their sorters every three items.
        options.bulkSortBatch = 3
        if mode == .bulk {
            // Every chunked transaction (3 to 11 records) is larger than the overlay:
            // a kill after its commit frame and before its seal leaves one that open
            // seals the segment around instead of replaying (FORMAT.md §4.7).
            options.overlayEntryLimit = 2
        }
        return options
    }
}
