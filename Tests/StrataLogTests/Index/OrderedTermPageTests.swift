import Testing
import StrataTestSupport
@testable import StrataLog

/// `orderedTermPage(index:from:through:descending:after:limit:)` walks one index in
/// term order (value, then key) or its reverse, a page at a time, across the overlay
/// and several index files holding replaced and deleted versions' terms: the pages
/// together are exactly the live entries a sorted plain list holds, each key located
/// at its current version.
@Suite struct OrderedTermPageTests {
    /// Every page of a walk, joined; checks each page's own order and its cursor.
    static func walk(_ store: LogStore, index: UInt32, descending: Bool, limit: Int) throws -> [TermEntry] {
        var got: [TermEntry] = []
        var after: TermEntry?
        var pages = 0
        while true {
            let page = try store.orderedTermPage(index: index, descending: descending, after: after, limit: limit)
            let entries = page.entries.map { TermEntry(value: page.values[$0.valueIndex], key: $0.located.key) }
            // Each distinct value once, in the walk's order.
            #expect(page.values.count == Set(page.values).count)
            #expect(page.entries.map(\.valueIndex) == page.entries.map(\.valueIndex).sorted())
            for entry in entries {
                if let last = got.last { #expect(descending ? entry < last : last < entry, "out of order at \(entry)") }
                if let after { #expect(descending ? entry < after : after < entry, "not after the cursor: \(entry)") }
                got.append(entry)
            }
            #expect(page.sequence == store.lastSequence)
            pages += 1
            guard let next = page.next else { break }
            if let last = entries.last { #expect(descending ? !(last < next) : !(next < last), "the cursor is before the page's last entry") }
            after = next
            if pages > 10_000 { Issue.record("the walk does not end"); break }
        }
        return got
    }

    @Test("pages match a sorted plain list across sealed files, updates and deletes", arguments: [false, true])
    func pagesMatchAPlainList(descending: Bool) throws {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 2048
        let store = try LogStore.open(at: "/ordered", options: options, fileSystem: InMemoryFileSystem())
        var random = SeededRandom(seed: descending ? 29 : 31)
        var plain: [RecordKey: [UInt8]] = [:]
        for round in 0..<30 {
            var batch = WriteBatch()
            for _ in 0..<20 {
                let key = RecordKey(UInt64(random.int(in: 1...250)))
                if random.chance(15) {
                    batch.delete(key)
                    plain[key] = nil
                } else if random.chance(10) {
                    // A version without the term: the key leaves the index.
                    batch.put(key, value: [1], terms: [IndexTerm(index: 4, value: [9])])
                    plain[key] = nil
                } else {
                    // Few distinct values (ties across keys), some past the inline length.
                    let value = [UInt8(random.int(in: 0...5))] + (0..<random.int(in: 0...18)).map { _ in UInt8(random.int(in: 0...1)) }
                    batch.put(key, value: [2], terms: [IndexTerm(index: 5, value: value), IndexTerm(index: 6, value: [0])])
                    plain[key] = value
                }
            }
            try store.commit(batch)
            if round % 7 == 3 { try store.sealActiveSegment() }
            let ascending = plain.map { TermEntry(value: $0.value, key: $0.key) }.sorted()
            let expected = descending ? Array(ascending.reversed()) : ascending
            for limit in [1, 2, 5, 64] {
                #expect(try Self.walk(store, index: 5, descending: descending, limit: limit) == expected, "round \(round), limit \(limit)")
            }
        }
        // Each entry is located at its key's current version.
        let page = try store.orderedTermPage(index: 5, descending: descending, after: nil, limit: 1000)
        var located = 0
        try store.visitRecords(located: page.entries.map(\.located)) { i, view in
            #expect(view.key == page.entries[i].located.key)
            #expect(Array(view.value) == [2])
            located += 1
            return true
        }
        #expect(located == plain.count)
        #expect(try store.orderedTermPage(index: 77, descending: descending, after: nil, limit: 10).entries.isEmpty)
    }

    /// A store whose keys `sealed` carry a term of `index` (valued by `value`) in one
    /// sealed index file, beside other indexes' terms (index 1 and 4 on either side of
    /// it), and whose keys `overlay` carry one in the overlay; with those entries as a
    /// plain list.
    static func runs(at path: String, index: UInt32, sealed: ClosedRange<Int>, overlay: ClosedRange<Int>,
                     value: (Int) -> [UInt8]) throws -> (LogStore, [TermEntry]) {
        let store = try LogStore.open(at: path, fileSystem: InMemoryFileSystem())
        var plain: [TermEntry] = []
        for (keys, isSealed) in [(sealed, true), (overlay, false)] {
            var batch = WriteBatch()
            for k in keys {
                let term = IndexTerm(index: index, value: value(k))
                batch.put(RecordKey(UInt64(k)), value: [], terms: isSealed ? [IndexTerm(index: 1, value: [0]), term, IndexTerm(index: 4, value: [1])] : [term])
                plain.append(TermEntry(value: term.value, key: RecordKey(UInt64(k))))
            }
            try store.commit(batch)
            if isSealed { try store.sealActiveSegment() }
        }
        return (store, plain)
    }

    /// A page that continues a long run of one value starts in the index file's block
    /// where the cursor lies (sought through the fence's last keys), not at the run's
    /// first term: runs of 1,000 keys span several term blocks, beside other indexes'
    /// terms, with more of each run in the overlay.
    @Test("runs of one value across many term blocks are paged from the cursor", arguments: [false, true])
    func longRunsAcrossBlocks(descending: Bool) throws {
        let (store, plain) = try Self.runs(at: "/runs", index: 3, sealed: 1...3_000, overlay: 3_001...3_300) { [UInt8($0 % 3), 7] }
        let expected = descending ? plain.sorted(by: >) : plain.sorted()
        for limit in [1, 7, 64, 500] {
            #expect(try Self.walk(store, index: 3, descending: descending, limit: limit) == expected, "limit \(limit)")
        }
    }

    /// Bounds and a cursor together: pages of a range of values, small enough that
    /// each continues a run of one value, across an index file's blocks and the
    /// overlay, give exactly the range's entries in order.
    @Test("bounds and a cursor page through a range of long runs", arguments: [false, true])
    func boundedPagesOfLongRuns(descending: Bool) throws {
        let (store, plain) = try Self.runs(at: "/bounded-runs", index: 2, sealed: 1...2_000, overlay: 2_001...2_200) { [UInt8($0 % 5)] }
        let wanted = plain.filter { (1...3).contains($0.value[0]) }
        let expected = descending ? wanted.sorted(by: >) : wanted.sorted()
        for limit in [3, 50, 333] {
            var got: [TermEntry] = []
            var after: TermEntry?
            while true {
                let page = try store.orderedTermPage(index: 2, from: [1], through: [3], descending: descending, after: after, limit: limit)
                got += page.entries.map { TermEntry(value: page.values[$0.valueIndex], key: $0.located.key) }
                guard let next = page.next, got.count <= expected.count else { break }
                after = next
            }
            #expect(got == expected, "limit \(limit)")
        }
    }

    @Test("a term's bytes come back as they went in, inline or not")
    func termBytesRoundTrip() {
        var random = SeededRandom(seed: 5)
        for length in 0...24 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8(random.int(in: 0...255)) }
                #expect(TermBytes(bytes).bytes == bytes, "\(bytes)")
                // Read in place a word at a time, the same value.
                bytes.withUnsafeBytes { raw in
                    #expect(TermBytes(raw) == TermBytes(bytes), "\(bytes)")
                    #expect(TermBytes(raw).bytes == bytes, "\(bytes)")
                }
            }
        }
    }

    @Test("bounds keep the walk within a range of values")
    func bounds() throws {
        let store = try LogStore.open(at: "/bounded", fileSystem: InMemoryFileSystem())
        var batch = WriteBatch()
        for k in 1...40 { batch.put(RecordKey(UInt64(k)), value: [], terms: [IndexTerm(index: 2, value: [UInt8(k % 8)])]) }
        try store.commit(batch)
        try store.sealActiveSegment()
        var more = WriteBatch()
        for k in 41...50 { more.put(RecordKey(UInt64(k)), value: [], terms: [IndexTerm(index: 2, value: [UInt8(k % 8)])]) }
        try store.commit(more)
        for descending in [false, true] {
            let page = try store.orderedTermPage(index: 2, from: [2], through: [4], descending: descending, after: nil, limit: 100)
            let values = page.entries.map { page.values[$0.valueIndex][0] }
            #expect(Set(values) == [2, 3, 4])
            #expect(values == (descending ? values.sorted(by: >) : values.sorted()))
            #expect(page.entries.count == (1...50).filter { (2...4).contains($0 % 8) }.count)
        }
    }
}
