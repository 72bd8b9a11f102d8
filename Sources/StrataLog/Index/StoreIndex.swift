/// The store's index (FORMAT.md §7): the overlay of the active segment, one index file
/// per sealed segment, and the counters. Memory is the overlay plus each file's footer;
/// everything else is read through the block cache.
///
/// A key's current version is the one with the greatest sequence among the overlay and
/// the files. Segment ids do not order versions (compaction outputs carry old sequences
/// under new ids), so files are probed by descending `maxSequence` and the search stops
/// once no remaining file can hold a newer version. The overlay always wins: the active
/// segment holds only transactions committed after every sealed one.
struct StoreIndex: Sendable {
    var overlay = IndexOverlay()
    /// Sorted by descending footer `maxSequence`.
    private(set) var files: [IndexFile] = []
    var counters = IndexCounters()

    var count: Int { counters.liveCount }

    mutating func install(_ file: IndexFile) {
        files.removeAll { $0.segmentID == file.segmentID }
        let at = files.firstIndex { $0.footer.maxSequence < file.footer.maxSequence } ?? files.count
        files.insert(file, at: at)
    }

    mutating func remove(segments: Set<UInt32>) {
        files.removeAll { segments.contains($0.segmentID) }
    }

    func file(for segment: UInt32) -> IndexFile? { files.first { $0.segmentID == segment } }

    /// The newest version of `key` in the sealed files, tombstones included.
    func sealedEntry(_ key: RecordKey) throws -> IndexEntry? {
        try Self.sealedEntry(key, in: files)
    }

    /// The newest version of `key` in `files` (sorted by descending `maxSequence`, as
    /// `files` is): a snapshot of the list lets readers probe outside the state lock.
    static func sealedEntry(_ key: RecordKey, in files: [IndexFile]) throws -> IndexEntry? {
        try newest(in: files) { file, _ in try file.entry(key) }
    }

    /// ``sealedEntry(_:in:)`` with a memo per file (`memos[i]` for `files[i]`).
    static func sealedEntry(_ key: RecordKey, in files: [IndexFile], memos: inout [IndexFile.LookupMemo]) throws -> IndexEntry? {
        try newest(in: files) { file, i in try file.entry(key, memo: &memos[i]) }
    }

    /// ``sealedEntry(_:in:)`` as a slot without blob references: where a record lies.
    static func sealedSlot(_ key: RecordKey, in files: [IndexFile]) throws -> IndexSlot? {
        try newest(in: files) { file, _ in
            var memo = IndexFile.LookupMemo()
            return try file.locatedSlot(key, memo: &memo)
        }
    }

    /// ``sealedSlot(_:in:)`` with a memo per file (`memos[i]` for `files[i]`): an index
    /// read's candidates, looked up one after another.
    static func sealedSlot(_ key: RecordKey, in files: [IndexFile], memos: inout [IndexFile.LookupMemo]) throws -> IndexSlot? {
        try newest(in: files) { file, i in try file.locatedSlot(key, memo: &memos[i]) }
    }

    /// The newest of the versions `lookup` finds in `files[i]`, probing the files in
    /// their order (descending `maxSequence`) until none left can hold a newer one.
    ///
    /// Each file is lent to `lookup` unretained (the array holds it throughout): taken
    /// from the array, it would be retained and released per probe, an atomic count
    /// on every probe of an indexed query.
    private static func newest<Version: IndexVersion>(in files: [IndexFile], _ lookup: (IndexFile, Int) throws -> Version?) throws -> Version? {
        try files.withUnsafeBufferPointer { files in
            var best: Version?
            for i in files.indices {
                let (stop, found) = try Unmanaged.passUnretained(files[i])._withUnsafeGuaranteedRef { file -> (Bool, Version?) in
                    if let best, file.footer.maxSequence < best.sequence { return (true, nil) }
                    return (false, try lookup(file, i))
                }
                if stop { break }
                guard let found else { continue }
                if best.map({ found.isNewer(than: $0) }) ?? true { best = found }
            }
            return best
        }
    }

    /// The current version of `key`, tombstones included.
    func entry(_ key: RecordKey) throws -> IndexEntry? {
        if let found = overlay.entry(key) { return found }
        return try sealedEntry(key)
    }

    /// ``entry(_:)`` without its blob references: what locating a record needs.
    func slot(_ key: RecordKey) throws -> IndexSlot? {
        if let found = overlay.slot(key) { return found }
        return try Self.sealedSlot(key, in: files)
    }

    /// Applies a version written to the active segment (a commit, or open's replay):
    /// the counters move from the version it replaces to it.
    mutating func apply(_ entry: IndexEntry, terms: [IndexTerm], replacing previous: IndexEntry?) {
        if let previous {
            guard entry.isNewer(than: previous) else { return }
            counters.remove(previous)
        }
        counters.add(entry)
        overlay.add(entry, terms: terms)
    }

    /// Blob files that current versions reference: the overlay and every index file
    /// streamed, each entry with blobs checked against the current version.
    func blobFilesReferenced() throws -> Set<UInt32> {
        var referenced = Set<UInt32>()
        for e in overlay.allEntries { for blob in e.blobs { referenced.insert(blob.file) } }
        for file in files {
            var candidates: [IndexEntry] = []
            try file.forEachEntry { e in if !e.blobs.isEmpty { candidates.append(e) } }
            for e in candidates where try entry(e.key) == e { for blob in e.blobs { referenced.insert(blob.file) } }
        }
        return referenced
    }

    /// Up to `limit` current entries of `index` whose value starts with `prefix`,
    /// ascending by (value, key), strictly after `after`: the overlay's and the files'
    /// terms within the prefix, each kept only while its key's current version has
    /// its sequence.
    mutating func termEntries(index: UInt32, prefix: [UInt8], after: TermEntry?, limit: Int) throws -> [TermEntry] {
        guard limit > 0 else { return [] }
        var lower = prefix
        if let after, !after.value.lexicographicallyPrecedes(prefix) { lower = after.value }
        // The first value after every value that starts with `prefix`, if any.
        var upper: [UInt8]? = prefix
        while let last = upper?.last, last == 0xFF { upper?.removeLast() }
        if var u = upper, !u.isEmpty { u[u.count - 1] += 1; upper = u } else { upper = nil }
        var candidates: [(TermEntry, UInt64)] = []
        func note(_ t: IndexTermEntry) {
            let entry = TermEntry(value: t.value.bytes, key: t.key)
            guard entry.value.starts(with: prefix) else { return }
            if let after, !(after < entry) { return }
            candidates.append((entry, t.sequence))
        }
        overlay.normalizeTerms()
        overlay.terms(index: index, from: lower, through: upper, lowerInclusive: true, upperInclusive: false, note)
        for file in files {
            try file.terms(index: index, from: lower, through: upper, lowerInclusive: true, upperInclusive: false, note)
        }
        candidates.sort { $0.0 < $1.0 }
        var result: [TermEntry] = []
        for (entry, sequence) in candidates {
            if let last = result.last, last == entry { continue }
            guard let current = try self.entry(entry.key), !current.isTombstone, current.sequence == sequence else { continue }
            result.append(entry)
            if result.count == limit { break }
        }
        return result
    }

    // MARK: Range reads

    /// Calls `body` with the current version (tombstones included) of each key from
    /// `start` up to `end` (exclusive), ascending, until it returns false: a merge of
    /// the overlay and every file whose key range meets the range.
    mutating func merge(from start: RecordKey, to end: RecordKey?, _ body: (IndexEntry) throws -> Bool) throws {
        try mergeSlots(from: start, to: end) { slot, blobs in
            try body(IndexEntry(slot, blobs: slot.blobList < 0 ? [] : blobs()))
        }
    }

    /// ``merge(from:to:_:)`` handing over slots: each entry without its blob references,
    /// which `blobs` gives when asked (only while `body` runs). A walk that only locates
    /// records (a scan) copies no blob list.
    mutating func mergeSlots(from start: RecordKey, to end: RecordKey?, _ body: (IndexSlot, () -> [BlobRef]) throws -> Bool) throws {
        if let end, start >= end { return }
        overlay.normalizeKeys()
        let overlayKeys = overlay.keys(from: start)
        var overlayPosition = overlayKeys.startIndex
        var cursors: [IndexFile.Cursor] = []
        for file in files where file.footer.entryCount > 0 && file.footer.maxKey >= start.rawValue && (end.map { file.footer.minKey < $0.rawValue } ?? true) {
            let cursor = try file.cursor(from: start)
            if cursor.currentKey != nil { cursors.append(cursor) }
        }
        while true {
            // The smallest key any source offers next, and which file alone offers it.
            var next: RecordKey?
            var holder: Int? // the one file whose current key it is; nil when several or the overlay
            if overlayPosition < overlayKeys.endIndex { next = overlayKeys[overlayPosition].key }
            for i in cursors.indices {
                guard let k = cursors[i].currentKey else { continue }
                if next.map({ k < $0 }) ?? true {
                    next = k
                    holder = i
                } else if k == next {
                    holder = nil
                }
            }
            guard let key = next else { return }
            if let end, key >= end { return }
            if let holder {
                // Keys below every other source's next key lie in that file alone (each
                // source is in key order): its run up to there is handed over as it
                // lies, without choosing per key. Segments written one after another
                // hold disjoint key ranges, so a scan over many is mostly such runs,
                // and a range one file alone covers (a sealed, compacted or bulk-loaded
                // entity) is one run.
                var bound = end
                func lower(_ k: RecordKey) { bound = bound.map { min($0, k) } ?? k }
                if overlayPosition < overlayKeys.endIndex { lower(overlayKeys[overlayPosition].key) }
                for i in cursors.indices where i != holder {
                    if let k = cursors[i].currentKey { lower(k) }
                }
                guard try cursors[holder].run(below: bound, body) else { return }
                continue
            }
            // The overlay's version beats every file's.
            if overlayPosition < overlayKeys.endIndex && overlayKeys[overlayPosition].key == key {
                let position = overlayKeys[overlayPosition].position
                overlayPosition += 1
                for i in cursors.indices where cursors[i].currentKey == key { try cursors[i].advance() }
                if try !body(overlay.slot(at: position), { overlay.blobs(at: position) }) { return }
                continue
            }
            // Otherwise the newest among the files that hold the key: handed over
            // before the cursors move on, as its blob list lies in its cursor's block.
            var newest: (cursor: Int, slot: IndexSlot)?
            for i in cursors.indices where cursors[i].currentKey == key {
                if let candidate = cursors[i].currentSlot, newest.map({ candidate.isNewer(than: $0.slot) }) ?? true { newest = (i, candidate) }
            }
            guard let newest else { continue }
            if try !body(newest.slot, { cursors[newest.cursor].blobs(of: newest.slot) }) { return }
            for i in cursors.indices where cursors[i].currentKey == key { try cursors[i].advance() }
        }
    }

    /// Every key's current version, tombstones included (counters of an upgraded store).
    mutating func forEachCurrent(_ body: (IndexEntry) throws -> Void) throws {
        try merge(from: RecordKey(0), to: nil) { try body($0); return true }
    }

    /// Live keys in `range` after `after` (exclusive), ascending, at most `limit`.
    mutating func keys(in range: Range<RecordKey>?, after: RecordKey?, limit: Int) throws -> [RecordKey] {
        try liveSlots(in: range, after: after, limit: limit) { $0.key }
    }

    /// Live keys in `range`, ascending, each with where its current version lies.
    mutating func locatedKeys(in range: Range<RecordKey>?) throws -> [LocatedKey] {
        try liveSlots(in: range, after: nil, limit: .max) { LocatedKey($0) }
    }

    /// What `make` makes of each live slot in `range` after `after`, ascending, at most
    /// `limit`. Slots, not entries: an entry made per key would retain and release its
    /// blob list for every key listed.
    private mutating func liveSlots<T>(in range: Range<RecordKey>?, after: RecordKey?, limit: Int, _ make: (IndexSlot) -> T) throws -> [T] {
        guard limit > 0, let start = Self.start(of: range, after: after) else { return [] }
        var result: [T] = []
        // Sized once from the prefix's live count where the range is a whole prefix:
        // grown by doubling, a long list of located keys would be allocated, copied
        // and paged in several times over.
        // The hint is a counter, which an edited manifest may make any size: reserved
        // up to a bound, beyond which the list grows as it is filled.
        result.reserveCapacity(max(0, min(limit, liveCountHint(range), 1 << 20)))
        try mergeSlots(from: start, to: range?.upperBound) { slot, _ in
            if !slot.isTombstone { result.append(make(slot)) }
            return result.count < limit
        }
        return result
    }

    /// Where a walk of `range` after `after` (exclusive) starts; nil when nothing follows `after`.
    private static func start(of range: Range<RecordKey>?, after: RecordKey?) -> RecordKey? {
        var start = range?.lowerBound ?? RecordKey(0)
        if let after {
            guard after.rawValue < UInt64.max else { return nil }
            start = max(start, RecordKey(after.rawValue + 1))
        }
        return start
    }

    /// Up to `limit` current live entries after `after` (exclusive), ascending by key:
    /// what `keys(in:after:limit:)` lists, with each key's location, so that a scan
    /// reads the records without looking every key up again.
    mutating func entries(in range: Range<RecordKey>?, after: RecordKey?, limit: Int) throws -> [IndexEntry] {
        guard limit > 0, let start = Self.start(of: range, after: after) else { return [] }
        var result: [IndexEntry] = []
        try merge(from: start, to: range?.upperBound) { entry in
            if !entry.isTombstone { result.append(entry) }
            return result.count < limit
        }
        return result
    }

    /// The greatest live key in `range`, reading back from its end.
    func lastKey(in range: Range<RecordKey>) throws -> RecordKey? {
        var upper = range.upperBound
        while upper > range.lowerBound {
            var best: RecordKey?
            if let k = overlay.lastKey(from: range.lowerBound, below: upper) { best = k }
            for file in files {
                if let k = try file.lastKey(from: range.lowerBound, below: upper), best.map({ k > $0 }) ?? true { best = k }
            }
            guard let candidate = best else { return nil }
            if let e = try entry(candidate), !e.isTombstone { return candidate }
            upper = candidate
        }
        return nil
    }

    /// About how many live keys `range` holds, for sizing a list of them: the
    /// prefix's counter when the range is a whole prefix (give or take a few keys),
    /// else 0 (unknown without a walk).
    private func liveCountHint(_ range: Range<RecordKey>?) -> Int {
        guard let range else { return counters.liveCount }
        guard let prefix = Self.wholePrefix(range) else { return 0 }
        return min(counters.liveCount, Int(clamping: counters.liveCountByPrefix[prefix] ?? 0))
    }

    /// The prefix `range` spans whole, give or take up to 16 keys at its start (the
    /// object layer's counter record and such); nil for any other range.
    private static func wholePrefix(_ range: Range<RecordKey>) -> UInt16? {
        let prefix = UInt64(IndexCounters.prefix(range.lowerBound))
        let reachesEnd = prefix == 0xFFFF ? range.upperBound.rawValue == UInt64.max : range.upperBound.rawValue == (prefix + 1) << 48
        guard reachesEnd, range.lowerBound.rawValue - (prefix << 48) <= 16 else { return nil }
        return UInt16(prefix)
    }

    /// Live keys in `range`: from the per-prefix counters when the range is a whole
    /// prefix (give or take a few keys at its start, such as the object layer's
    /// counter record), by walking keys otherwise.
    mutating func count(in range: Range<RecordKey>?) throws -> Int {
        guard let range else { return counters.liveCount }
        guard range.lowerBound < range.upperBound else { return 0 }
        if let prefix = Self.wholePrefix(range) {
            var total = Int(clamping: counters.liveCountByPrefix[prefix] ?? 0)
            var key = UInt64(prefix) << 48
            while key < range.lowerBound.rawValue {
                if let e = try entry(RecordKey(key)), !e.isTombstone { total -= 1 }
                key += 1
            }
            if prefix == 0xFFFF, let e = try entry(RecordKey(UInt64.max)), !e.isTombstone { total -= 1 }
            return max(0, total)
        }
        var total = 0
        var after: RecordKey?
        while true {
            let page = try keys(in: range, after: after, limit: 4096)
            total += page.count
            guard let last = page.last, page.count == 4096 else { return total }
            after = last
        }
    }

    /// Live keys whose current version carries a term of `index` within the bounds,
    /// ascending. A term counts only while its key's current version has the term's
    /// sequence: replaced and deleted versions' terms stay in the files until
    /// compaction, and are dropped here.
    mutating func keys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) throws -> [RecordKey] {
        try entries(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive).map(\.key)
    }

    /// `key`'s current version when it is the live one that wrote a term of
    /// `sequence`; nil when the term is stale (its version replaced or deleted since).
    func currentSlot(_ key: RecordKey, carryingTermOf sequence: UInt64, memos: inout [IndexFile.LookupMemo]) throws -> IndexSlot? {
        guard let current = try overlay.slot(key) ?? Self.sealedSlot(key, in: files, memos: &memos),
              !current.isTombstone, current.sequence == sequence else { return nil }
        return current
    }

    /// What `keys(index:…)` lists, each key with its current version (the entry that
    /// confirmed it), ascending by key. Made as located keys where the entries are
    /// found: a list of entries mapped to them afterwards would copy each entry twice
    /// (its blob list retained and released each time).
    mutating func entries(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) throws -> [LocatedKey] {
        var candidates: [(RecordKey, UInt64)] = []
        // Room for an equality read's usual hundred or so: grown from empty, the array
        // was reallocated eight times per query.
        candidates.reserveCapacity(256)
        overlay.normalizeTerms()
        overlay.terms(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive) { candidates.append(($0.key, $0.sequence)) }
        for file in files {
            try file.termKeys(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive) { candidates.append(($0, $1)) }
        }
        var result: [LocatedKey] = []
        result.reserveCapacity(candidates.count)
        // The candidates come in ascending runs (one per source): each file's fence and
        // last block are kept from one lookup to the next.
        var memos = IndexFile.LookupMemo.perFile(files.count)
        for (key, sequence) in candidates {
            guard let current = try currentSlot(key, carryingTermOf: sequence, memos: &memos) else { continue }
            result.append(LocatedKey(current))
        }
        // One value's terms from one source are already in key order (an equality
        // read): no sort then. A key two sources both list (the same version met
        // twice) is kept once.
        if result.indices.dropFirst().contains(where: { result[$0 - 1].key >= result[$0].key }) {
            result.sort { $0.key < $1.key }
            var previous: RecordKey?
            result.removeAll { entry in
                defer { previous = entry.key }
                return entry.key == previous
            }
        }
        return result
    }
}
