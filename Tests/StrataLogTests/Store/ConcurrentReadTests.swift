import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// Readers probe the sealed index files outside the state lock (`LogStore.locate`):
/// while a writer overwrites keys, seals segments and compacts them away, every read
/// must still find a version of its key — one that was written, never a missing key,
/// another key's record or an error from a segment retired under it.
@Suite struct ConcurrentReadTests {
    static let keys = 300
    static let rounds = 12

    /// The value of `key` after round `round` (round 0: the first write).
    static func value(_ key: Int, round: Int) -> [UInt8] {
        LogFixtures.value(UInt64(key), version: round, size: 48)
    }

    @Test func readsFindAWrittenVersionWhileSegmentsSealAndCompact() throws {
        let dir = try TemporaryDirectory("concurrent-reads")
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.durability = .none
        options.segmentSizeLimit = 8 << 10
        options.overlayEntryLimit = 64
        options.blockCacheBytes = 32 << 10
        let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
        defer { try? store.close() }
        var first = WriteBatch()
        for k in 1...Self.keys { first.put(RecordKey(UInt64(k)), value: Self.value(k, round: 0), terms: [IndexTerm(index: 1, value: [UInt8(k % 5)])]) }
        try store.commit(first)
        try store.sealActiveSegment()

        let writing = Locked(true)
        let problems = Locked<[String]>([])
        let readsDone = Locked(0)
        let group = DispatchGroup()
        for reader in 0..<2 {
            DispatchQueue.global().async(group: group) {
                var random = SeededRandom(seed: UInt64(reader + 1))
                var reads = 0
                while writing.withLock({ $0 }) || reads < 500 {
                    let keys = (0..<4).map { _ in random.int(in: 1...Self.keys) }
                    do {
                        if random.chance(50) {
                            let k = keys[0]
                            let record = try store.get(RecordKey(UInt64(k)))
                            if let problem = Self.problem(k, record) { problems.withLock { $0.append(problem) } }
                        } else {
                            let records = try store.get(keys.map { RecordKey(UInt64($0)) })
                            for (k, record) in zip(keys, records) {
                                if let problem = Self.problem(k, record) { problems.withLock { $0.append(problem) } }
                            }
                        }
                    } catch {
                        problems.withLock { $0.append("read threw \(error)") }
                    }
                    reads += 1
                }
                readsDone.withLock { $0 += reads }
            }
        }
        for round in 1...Self.rounds {
            for start in stride(from: 1, through: Self.keys, by: 50) {
                var batch = WriteBatch()
                for k in start..<min(start + 50, Self.keys + 1) { batch.put(RecordKey(UInt64(k)), value: Self.value(k, round: round)) }
                try store.commit(batch)
            }
            try store.sealActiveSegment()
            try store.compact(force: true)
        }
        writing.withLock { $0 = false }
        group.wait()
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { Array($0.prefix(5)) })")
        #expect(readsDone.withLock { $0 } >= 1_000)
        for k in 1...Self.keys { #expect(try store.get(RecordKey(UInt64(k)))?.value == Self.value(k, round: Self.rounds)) }
    }

    /// Nil when `record` is a version of `key` that some round wrote.
    static func problem(_ key: Int, _ record: Record?) -> String? {
        guard let record else { return "key \(key) not found" }
        guard record.key == RecordKey(UInt64(key)) else { return "key \(key) answered with key \(record.key)" }
        guard (0...rounds).contains(where: { value(key, round: $0) == record.value }) else { return "key \(key): a value no round wrote" }
        return nil
    }
}
