extension StoreIndex {
    /// A page of `index`'s live entries within the bounds (inclusive), in term order
    /// (value, then key) or its reverse, strictly after `after` in that order.
    ///
    /// Each source (the overlay and every index file) is walked in order from the
    /// cursor and stops after `limit` terms, so a page reads about `limit` terms a
    /// source, not the rest of the index. The sources' terms are merged up to the
    /// frontier: the earliest last term among the sources that stopped short (each
    /// may hold more past its last). Terms are confirmed as `entries(index:…)`
    /// confirms them (the key's current version carries the term's sequence);
    /// replaced and deleted versions' terms are dropped, so a page can be empty
    /// while `next` says more follow.
    mutating func orderedTermPage(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, descending: Bool,
                                  after: TermEntry?, limit: Int) throws -> (values: [[UInt8]], entries: [(valueIndex: Int, located: LocatedKey)], next: TermEntry?) {
        let limit = max(1, limit)
        // The walk's order: ascending by (value, key), or descending by both.
        func before(_ a: (TermBytes, RecordKey), _ b: (TermBytes, RecordKey)) -> Bool {
            let earlier = a.0 != b.0 ? a.0 < b.0 : a.1 < b.1
            return descending ? (a.0 != b.0 || a.1 != b.1) && !earlier : earlier
        }
        // Each source seeks the cursor itself, by value and key (a run of one value is
        // not re-read from its first term), and lists only terms strictly after it.
        var candidates: [(value: TermBytes, key: RecordKey, sequence: UInt64)] = []
        // A page's worth: sources past the first rarely fill theirs, and a store of
        // many index files would otherwise reserve a page for each.
        candidates.reserveCapacity(limit)
        var frontier: (TermBytes, RecordKey)?
        func source(_ walk: ((TermBytes, RecordKey, UInt64) -> Bool) throws -> Void) rethrows {
            var taken = 0
            var last: (TermBytes, RecordKey)?
            try walk { value, key, sequence in
                candidates.append((value, key, sequence))
                last = (value, key)
                taken += 1
                return taken < limit
            }
            // Stopped at the limit: this source may hold more past its last term.
            if taken == limit, let last, frontier.map({ before(last, $0) }) ?? true { frontier = last }
        }
        overlay.normalizeTerms()
        source { body in
            overlay.orderedTerms(index: index, from: lower, through: upper, descending: descending, after: after) { body($0.value, $0.key, $0.sequence) }
        }
        for file in files {
            try source { body in
                try file.orderedTerms(index: index, from: lower, through: upper, descending: descending, after: after) { value, key, sequence in
                    body(TermBytes(value), key, sequence)
                }
            }
        }
        // Sorted only when the sources' terms interleave: one source's (an index
        // file's, with an empty overlay) are already in the walk's order.
        func precedes(_ a: (value: TermBytes, key: RecordKey, sequence: UInt64), _ b: (value: TermBytes, key: RecordKey, sequence: UInt64)) -> Bool {
            if a.value != b.value || a.key != b.key { return before((a.value, a.key), (b.value, b.key)) }
            return a.sequence > b.sequence
        }
        if candidates.indices.dropFirst().contains(where: { !precedes(candidates[$0 - 1], candidates[$0]) }) {
            candidates.sort(by: precedes)
        }
        var values: [[UInt8]] = []
        var entries: [(valueIndex: Int, located: LocatedKey)] = []
        entries.reserveCapacity(candidates.count)
        var memos = IndexFile.LookupMemo.perFile(files.count)
        var previous: (TermBytes, RecordKey)?
        for candidate in candidates {
            if let frontier, before(frontier, (candidate.value, candidate.key)) { break }
            // The same term of the same key from two sources (a version and its
            // rewrite with an equal value): kept once, if current.
            if let previous, previous.0 == candidate.value, previous.1 == candidate.key { continue }
            guard let current = try currentSlot(candidate.key, carryingTermOf: candidate.sequence, memos: &memos) else { continue }
            // A value made bytes once per run of it, not once per entry.
            if previous?.0 != candidate.value { values.append(candidate.value.bytes) }
            previous = (candidate.value, candidate.key)
            entries.append((values.count - 1, LocatedKey(current)))
        }
        return (values, entries, frontier.map { TermEntry(value: $0.0.bytes, key: $0.1) })
    }
}
