import Testing
import StrataTestSupport
@testable import StrataLog

/// An index file holding keys of several prefixes (entity tags) answers "not here" for
/// a key between its prefixes' runs without asking its Bloom filter, and never for a key
/// it holds: model-checked on random files of one to five prefixes, over several data
/// blocks, with tombstones.
@Suite struct PrefixRunTests {
    static let storeID = [UInt8](repeating: 7, count: 16)

    static func file(_ keys: [UInt64]) throws -> IndexFile {
        let entries = keys.enumerated().map { i, key in
            IndexEntry(key: RecordKey(key), sequence: UInt64(i + 1), isTombstone: i % 7 == 3,
                       location: RecordLocation(segment: 1, frameOffset: 48, frameLength: 100, recordOffset: 4, recordLength: 30), blobs: [])
        }
        let bytes = try IndexFileBuilder.encode(entries: entries, terms: [], segmentID: 1, storeID: storeID, minSequence: 1,
                                            maxSequence: UInt64(keys.count), recordBytes: Int64(30 * keys.count), segmentLength: 1 << 20)
        return try IndexFile(file: ByteArrayFile(path: "000001.idx", bytes: bytes), segmentID: 1, storeID: storeID, cache: BlockCache(budget: 1 << 20))
    }

    @Test func runsAndLookupsMatchAModel() throws {
        var random = SplitMix(seed: 21)
        for round in 0..<40 {
            var keys = Set<UInt64>()
            let prefixCount = 1 + Int(random.next() % 5)
            var prefixes = Set<UInt16>()
            while prefixes.count < prefixCount { prefixes.insert(UInt16(random.next() % 12)) }
            for prefix in prefixes {
                let start = 1 + random.next() % 1_000, n = 1 + random.next() % 600, stride = 1 + random.next() % 3
                for i in 0..<n { keys.insert(UInt64(prefix) << 48 | (start + i * stride)) }
            }
            let sorted = keys.sorted()
            let file = try Self.file(sorted)
            let model = Dictionary(grouping: sorted) { UInt16($0 >> 48) }
                .map { IndexFile.PrefixRun(prefix: $0.key, first: $0.value.min() ?? 0, last: $0.value.max() ?? 0) }
                .sorted { $0.prefix < $1.prefix }
            #expect(try file.findPrefixRuns() == model, "round \(round)")
            for key in sorted { #expect(try file.mayContain(RecordKey(key)), "round \(round): \(key) is in the file") }
            // Keys in the file's range but outside every run: refused without the filter.
            for _ in 0..<300 {
                let probe = sorted[0] + random.next() % (sorted[sorted.count - 1] - sorted[0] + 1)
                let inRun = model.contains { $0.first <= probe && probe <= $0.last }
                if !inRun { #expect(try !file.mayContain(RecordKey(probe)), "round \(round): \(probe) lies between runs") }
            }
            // The edges of every run and the gaps beside them.
            for run in model {
                #expect(try file.mayContain(RecordKey(run.first)) && file.mayContain(RecordKey(run.last)))
                if run.first > sorted[0] { #expect(try !file.mayContain(RecordKey(run.first - 1)) || keys.contains(run.first - 1)) }
                if run.last < sorted[sorted.count - 1] { #expect(try !file.mayContain(RecordKey(run.last + 1)) || keys.contains(run.last + 1)) }
            }
        }
    }

    @Test func theLastPrefixRunsToTheTopOfTheKeySpace() throws {
        let keys: [UInt64] = [1, 2, UInt64.max - 1, UInt64.max]
        let file = try Self.file(keys)
        #expect(try file.findPrefixRuns() == [IndexFile.PrefixRun(prefix: 0, first: 1, last: 2),
                                              IndexFile.PrefixRun(prefix: .max, first: UInt64.max - 1, last: UInt64.max)])
        for key in keys { #expect(try file.mayContain(RecordKey(key))) }
        #expect(try !file.mayContain(RecordKey(3)))
        #expect(try !file.mayContain(RecordKey(UInt64.max - 2)))
    }

    /// Readers racing to find a fresh file's runs all answer right (one publishes them).
    @Test func concurrentFirstLookupsAgree() async throws {
        let present: [UInt64] = (1...400).map { UInt64(2) << 48 | UInt64($0) } + (1...400).map { UInt64(3) << 48 | UInt64($0) }
        let gaps: [UInt64] = (401...800).map { UInt64(2) << 48 | UInt64($0) }
        for _ in 0..<20 {
            let file = try Self.file(present)
            let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var wrong = 0
                        for key in present where try !file.mayContain(RecordKey(key)) { wrong += 1 }
                        for key in gaps where try file.mayContain(RecordKey(key)) { wrong += 1 }
                        return wrong
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wrong == 0)
        }
    }
}
