/// The secondary index: for each index number, term value → keys. Equality is a
/// hash lookup; ranges sort the distinct values of one index lazily, once per change.
/// Values and key sets are kept compact (`TermBytes`, `TermKeys`): this index holds
/// an entry for nearly every object of a store, and it lives in memory.
struct TermIndex {
    private struct PerIndex {
        var keysByValue: [TermBytes: TermKeys] = [:]
        var sortedValues: [TermBytes]? = nil
    }

    private var indexes: [UInt32: PerIndex] = [:]

    mutating func insert(index: UInt32, value: TermBytes, key: RecordKey) {
        // Mutated through the subscripts' in-place accessors, never read out and
        // written back, so a shared value's key set is not copied.
        if indexes[index]?.keysByValue[value]?.insert(key) != nil { return }
        indexes[index, default: PerIndex()].keysByValue[value] = .one(key)
        indexes[index]?.sortedValues = nil
    }

    mutating func remove(index: UInt32, value: TermBytes, key: RecordKey) {
        guard let keysLeft = indexes[index]?.keysByValue[value]?.remove(key), !keysLeft else { return }
        indexes[index]?.keysByValue[value] = nil
        indexes[index]?.sortedValues = nil
    }

    /// Takes `key` out of every value of every index: for a replaced version whose
    /// terms cannot be read back. Visits the whole index.
    mutating func removeEverywhere(_ key: RecordKey) {
        for (index, per) in indexes {
            for (value, keys) in per.keysByValue where keys.contains(key) {
                remove(index: index, value: value, key: key)
            }
        }
    }

    /// Keys carrying exactly this term, in no particular order.
    func keys(for term: IndexTerm) -> [RecordKey] {
        var result: [RecordKey] = []
        indexes[term.index]?.keysByValue[TermBytes(term.value)]?.appending(to: &result)
        return result
    }

    mutating func keys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) -> [RecordKey] {
        guard var per = indexes[index] else { return [] }
        let values: [TermBytes]
        if let cached = per.sortedValues {
            values = cached
        } else {
            values = per.keysByValue.keys.sorted()
            per.sortedValues = values
            indexes[index] = per
        }
        let lower = lower.map(TermBytes.init), upper = upper.map(TermBytes.init)
        var start = 0
        if let lower {
            // Binary search for the first value at or above the lower bound.
            var low = 0, high = values.count
            while low < high {
                let mid = (low + high) / 2
                if values[mid] < lower { low = mid + 1 } else { high = mid }
            }
            start = low
        }
        var result: [RecordKey] = []
        for value in values[start...] {
            if let lower, !lowerInclusive, value == lower { continue }
            if let upper {
                if upper < value { break }
                if !upperInclusive && value == upper { break }
            }
            per.keysByValue[value]?.appending(to: &result)
        }
        return result.sorted()
    }

    /// Up to `limit` entries of `index` whose value starts with `prefix`, ascending by
    /// (value, key), strictly after `after`. Pages through a prefix without
    /// materialising it: one binary search, then a walk of at most `limit` entries.
    mutating func entries(index: UInt32, prefix: [UInt8], after: TermEntry?, limit: Int) -> [TermEntry] {
        guard limit > 0, var per = indexes[index] else { return [] }
        let values: [TermBytes]
        if let cached = per.sortedValues {
            values = cached
        } else {
            values = per.keysByValue.keys.sorted()
            per.sortedValues = values
            indexes[index] = per
        }
        var lowerBytes = prefix
        if let after, !after.value.lexicographicallyPrecedes(prefix) { lowerBytes = after.value }
        let lower = TermBytes(lowerBytes)
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] < lower { low = mid + 1 } else { high = mid }
        }
        var result: [TermEntry] = []
        for value in values[low...] {
            let bytes = value.bytes
            guard bytes.starts(with: prefix) else { break }
            guard let keys = per.keysByValue[value] else { continue }
            var sorted: [RecordKey] = []
            keys.appending(to: &sorted)
            if sorted.count > 1 { sorted.sort() }
            for key in sorted {
                let entry = TermEntry(value: bytes, key: key)
                if let after, !(after < entry) { continue }
                result.append(entry)
                if result.count == limit { return result }
            }
        }
        return result
    }
}
