/// The secondary index: for each index number, term value → keys. Equality is a
/// hash lookup; ranges sort the distinct values of one index lazily, once per change.
struct TermIndex {
    private struct PerIndex {
        var keysByValue: [[UInt8]: Set<RecordKey>] = [:]
        var sortedValues: [[UInt8]]? = nil
    }

    private var indexes: [UInt32: PerIndex] = [:]

    mutating func insert(_ term: IndexTerm, key: RecordKey) {
        let inserted = indexes[term.index, default: PerIndex()].keysByValue[term.value, default: []].insert(key).inserted
        if inserted, indexes[term.index]?.keysByValue[term.value]?.count == 1 { indexes[term.index]?.sortedValues = nil }
    }

    mutating func remove(_ term: IndexTerm, key: RecordKey) {
        guard var keys = indexes[term.index]?.keysByValue[term.value] else { return }
        keys.remove(key)
        if keys.isEmpty {
            indexes[term.index]?.keysByValue[term.value] = nil
            indexes[term.index]?.sortedValues = nil
        } else {
            indexes[term.index]?.keysByValue[term.value] = keys
        }
    }

    func keys(for term: IndexTerm) -> Set<RecordKey> {
        indexes[term.index]?.keysByValue[term.value] ?? []
    }

    mutating func keys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) -> [RecordKey] {
        guard var per = indexes[index] else { return [] }
        let values: [[UInt8]]
        if let cached = per.sortedValues {
            values = cached
        } else {
            values = per.keysByValue.keys.sorted { $0.lexicographicallyPrecedes($1) }
            per.sortedValues = values
            indexes[index] = per
        }
        var result: [RecordKey] = []
        for value in values {
            if let lower {
                if value.lexicographicallyPrecedes(lower) { continue }
                if !lowerInclusive && value == lower { continue }
            }
            if let upper {
                if upper.lexicographicallyPrecedes(value) { break }
                if !upperInclusive && value == upper { break }
            }
            if let keys = per.keysByValue[value] { result.append(contentsOf: keys) }
        }
        return result.sorted()
    }
}
