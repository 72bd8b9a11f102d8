/// Puts an overlay's terms in an index file's order (index, value, key, sequence;
/// `IndexTermEntry.precedes`) for a roll, without a general sort where the terms'
/// arrival already gives most of it.
///
/// Terms arrive in commit order: within a commit by key, one record's terms of
/// several indexes side by side. A general sort of that (a migration's staging store
/// rolls segments of 65,536 objects with two or three terms each) would weigh on
/// every migration. Here the terms are first split by index, keeping their order (a
/// counting pass: an entity has few indexes). An index whose terms are then in order
/// (a to-one whose destinations were made in the same order, a serial) is done. One
/// whose terms came in key order but with values that repeat (a department, a
/// status) is grouped by value, the groups taken in value order, each keeping its
/// key order: one pass, and a sort of its few distinct values. Anything else is
/// sorted in full.
enum TermOrder {
    /// At most this many distinct values are grouped; past it, the index is sorted.
    static let groupLimit = 256

    static func sorted(_ terms: [IndexTermEntry]) -> [IndexTermEntry] {
        guard terms.count > 1 else { return terms }
        // The indexes, in order, and each term's.
        var indexes: [UInt32] = []
        var counts: [Int] = []
        var slotOfTerm = [Int](repeating: 0, count: terms.count)
        for (i, term) in terms.enumerated() {
            var slot = indexes.firstIndex(of: term.index) ?? -1
            if slot < 0 {
                guard indexes.count < groupLimit else { return terms.sorted(by: IndexTermEntry.precedes) }
                slot = indexes.count
                indexes.append(term.index)
                counts.append(0)
            }
            counts[slot] += 1
            slotOfTerm[i] = slot
        }
        let byIndex = indexes.indices.sorted { indexes[$0] < indexes[$1] }
        var start = [Int](repeating: 0, count: indexes.count)
        var next = 0
        for slot in byIndex {
            start[slot] = next
            next += counts[slot]
        }
        // Split, keeping arrival order within each index.
        var split = terms
        var fill = start
        for (i, term) in terms.enumerated() {
            split[fill[slotOfTerm[i]]] = term
            fill[slotOfTerm[i]] += 1
        }
        var result: [IndexTermEntry] = []
        result.reserveCapacity(terms.count)
        for slot in byIndex {
            result.append(contentsOf: ordered(split[start[slot]..<start[slot] + counts[slot]]))
        }
        return result
    }

    /// One index's terms in file order.
    private static func ordered(_ terms: ArraySlice<IndexTermEntry>) -> [IndexTermEntry] {
        if isSorted(terms, by: IndexTermEntry.precedes) { return Array(terms) }
        // Grouped by value, each group in arrival order: right when they arrived in
        // (key, sequence) order.
        if isSorted(terms, by: { $0.key != $1.key ? $0.key < $1.key : $0.sequence < $1.sequence }) {
            var values: [TermBytes] = []
            var groupOfTerm: [Int] = []
            groupOfTerm.reserveCapacity(terms.count)
            var lookup: [TermBytes: Int] = [:]
            var last: (value: TermBytes, group: Int)?
            var grouped = true
            for term in terms {
                if let last, last.value == term.value {
                    groupOfTerm.append(last.group)
                    continue
                }
                let group: Int
                if let known = lookup[term.value] {
                    group = known
                } else {
                    guard values.count < groupLimit else {
                        grouped = false
                        break
                    }
                    group = values.count
                    values.append(term.value)
                    lookup[term.value] = group
                }
                last = (term.value, group)
                groupOfTerm.append(group)
            }
            if grouped {
                let byValue = values.indices.sorted { TermBytes.order(values[$0], values[$1]) < 0 }
                var counts = [Int](repeating: 0, count: values.count)
                for group in groupOfTerm { counts[group] += 1 }
                var start = [Int](repeating: 0, count: values.count)
                var next = 0
                for group in byValue {
                    start[group] = next
                    next += counts[group]
                }
                var result = Array(terms)
                for (i, term) in terms.enumerated() {
                    result[start[groupOfTerm[i]]] = term
                    start[groupOfTerm[i]] += 1
                }
                return result
            }
        }
        return terms.sorted(by: IndexTermEntry.precedes)
    }

    private static func isSorted(_ terms: ArraySlice<IndexTermEntry>, by precedes: (IndexTermEntry, IndexTermEntry) -> Bool) -> Bool {
        var previous: IndexTermEntry?
        for term in terms {
            if let previous, precedes(term, previous) { return false }
            previous = term
        }
        return true
    }
}
