import Testing
import StrataTestSupport
@testable import StrataLog

/// `termEntries(index:prefix:after:limit:)` pages through one prefix of an index in
/// (value, key) order, values included, as a sorted plain list would.
@Suite struct TermEntriesTests {
    @Test func pagesMatchASortedPlainListAcrossUpdatesAndDeletes() throws {
        let store = try LogStore.open(at: "/m", fileSystem: InMemoryFileSystem())
        var random = SeededRandom(seed: 13)
        var plain: [RecordKey: [UInt8]] = [:]
        for _ in 0..<40 {
            var batch = WriteBatch()
            for _ in 0..<25 {
                let key = RecordKey(UInt64(random.int(in: 1...300)))
                if random.chance(20) {
                    batch.delete(key)
                    plain[key] = nil
                } else {
                    // Prefix byte 0…3, then a body whose length crosses the inline limit.
                    let value = [UInt8(random.int(in: 0...3))] + (0..<random.int(in: 0...20)).map { _ in UInt8(random.int(in: 0...2)) }
                    batch.put(key, value: [], terms: [IndexTerm(index: 9, value: value), IndexTerm(index: 10, value: value)])
                    plain[key] = value
                }
            }
            try store.commit(batch)
            for prefix in [[UInt8](), [1], [2, 0], [3, 1, 1]] {
                let expected = plain.filter { $0.value.starts(with: prefix) }.map { TermEntry(value: $0.value, key: $0.key) }.sorted()
                for limit in [1, 7, 1000] {
                    var got: [TermEntry] = []
                    var after: TermEntry?
                    while true {
                        let page = try store.termEntries(index: 9, prefix: prefix, after: after, limit: limit)
                        #expect(page.count <= limit)
                        got += page
                        guard let last = page.last, page.count == limit else { break }
                        after = last
                    }
                    #expect(got == expected, "prefix \(prefix), limit \(limit)")
                }
            }
        }
        #expect(try store.termEntries(index: 99, prefix: [], after: nil, limit: 10).isEmpty)
        #expect(try store.termEntries(index: 9, prefix: [], after: nil, limit: 0).isEmpty)
    }
}
