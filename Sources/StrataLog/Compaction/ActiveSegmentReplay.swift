/// What open's replay of the active segment (FORMAT.md §4.4) will make of the counters
/// a compaction swap writes, so that the swap can leave the active segment as it is.
///
/// The manifest's counters describe the sealed segments alone; open replays the active
/// segment on top of them, each key's first record there replacing the newest version
/// of its key in the sealed files. After a swap those files are not the ones the
/// commits met: a version the group held is gone, and its copy or an older version
/// elsewhere stands in its place. The swap therefore writes the counters it leaves in
/// memory less what that replay will add back, each record's predecessor looked up in
/// the files the swap leaves. (Sealing the active segment instead costs a roll's fsyncs
/// under the writer lock, which every commit then waits for, at every step.)
///
/// The records are accounted for as they come: most before the swap takes the writer
/// lock, the few committed since under it.
struct ActiveSegmentReplay {
    /// The active segment whose records are accounted for.
    let segment: UInt32
    /// The sealed files the swap leaves, by segment id: the lookups hold for these.
    let files: [UInt32]
    /// Every record of the active segment up to this sequence is accounted for.
    private(set) var through: UInt64 = 0
    /// Each key's newest record accounted for, and the sealed version its first one
    /// replaces at open (nil: none).
    private var accounted: [RecordKey: (newest: IndexEntry, replaced: IndexEntry?)] = [:]
    /// What the replay adds, taken back: the sealed segments' counters are the
    /// counters in memory plus this.
    private var adjustment = Adjustment()

    /// Per-file and per-prefix sums, which may be negative.
    private struct Adjustment {
        var segments: [UInt32: Int64] = [:]
        var blobFiles: [UInt32: Int64] = [:]
        var prefixes: [UInt16: Int64] = [:]

        mutating func add(_ entry: IndexEntry, _ sign: Int64) {
            segments[entry.location.segment, default: 0] &+= sign &* entry.recordBytes
            for blob in entry.blobs { blobFiles[blob.file, default: 0] &+= sign &* IndexCounters.blobBytes(blob) }
            if !entry.isTombstone { prefixes[IndexCounters.prefix(entry.key), default: 0] &+= sign }
        }
    }

    /// The sealed index files once a swap removes `group` and installs `outputs`, in
    /// the order open installs them, so that `StoreIndex.sealedEntry(_:in:)` finds in
    /// them what open's replay finds.
    static func files(of index: StoreIndex, removing group: Set<UInt32>, adding outputs: [IndexFile]) -> [IndexFile] {
        var after = StoreIndex()
        for file in index.files where !group.contains(file.segmentID) { after.install(file) }
        for file in outputs { after.install(file) }
        return after.files
    }

    init(segment: UInt32, files: [IndexFile]) {
        self.segment = segment
        self.files = files.map(\.segmentID)
    }

    /// Whether what was accounted for still holds: the same active segment (no roll
    /// since) and the same sealed files.
    func holds(segment: UInt32, files: [IndexFile]) -> Bool {
        self.segment == segment && self.files == files.map(\.segmentID)
    }

    /// How many keys of `entries` were not accounted for yet (each costs a lookup).
    func unaccounted(_ entries: [IndexEntry]) -> Int {
        entries.reduce(0) { $0 + (accounted[$1.key] == nil ? 1 : 0) }
    }

    /// Accounts for `entries`, the active segment's newest record of each key written
    /// after `through`, up to `sequence`. Returns false when the replay would skip a
    /// record (one not newer than its sealed version, which a sound store never holds):
    /// the caller then seals the active segment instead.
    ///
    /// - Throws: `IndexFile.Damage` for an index file that cannot be read.
    mutating func account(_ entries: [IndexEntry], through sequence: UInt64, in files: [IndexFile]) throws -> Bool {
        var memos = IndexFile.LookupMemo.perFile(files.count)
        for entry in entries.sorted(by: { $0.key < $1.key }) {
            guard entry.location.segment == segment else { return false }
            if let known = accounted[entry.key] {
                // The key's first record was accounted for: only its newest changed.
                adjustment.add(known.newest, 1)
                adjustment.add(entry, -1)
                accounted[entry.key] = (entry, known.replaced)
                continue
            }
            let replaced = try StoreIndex.sealedEntry(entry.key, in: files, memos: &memos)
            if let replaced {
                guard entry.isNewer(than: replaced) else { return false }
                adjustment.add(replaced, 1)
            }
            adjustment.add(entry, -1)
            accounted[entry.key] = (entry, replaced)
        }
        through = max(through, sequence)
        return true
    }

    /// The sealed segments' counters: `counters` (the swap's, in memory, every record
    /// of the active segment accounted for) less what open's replay adds back.
    func sealedCounters(_ counters: IndexCounters) -> IndexCounters {
        var sealed = counters
        for (id, bytes) in adjustment.segments { sealed.liveBytesBySegment[id, default: 0] &+= bytes }
        for (id, bytes) in adjustment.blobFiles { sealed.liveBytesByBlobFile[id, default: 0] &+= bytes }
        for (prefix, count) in adjustment.prefixes {
            let sum = (sealed.liveCountByPrefix[prefix] ?? 0) &+ count
            sealed.liveCountByPrefix[prefix] = sum == 0 ? nil : sum
        }
        // The active segment counts nothing until it is replayed.
        if sealed.liveBytesBySegment[segment] == 0 { sealed.liveBytesBySegment[segment] = nil }
        return sealed
    }
}

extension LogStore {
    /// At most this many keys are looked up under the writer lock at a swap; past it
    /// the swap seals the active segment instead.
    static let swapLookupLimit = 1_024

    /// `known` with the active segment's records committed since accounted for (all of
    /// them when `known` no longer holds), as open's replay will meet them once `group`
    /// is swapped for `outputs`. Nil when more than `limit` keys are left to look up,
    /// or when the replay would meet what a sound store never holds.
    func accountForActiveSegment(_ known: ActiveSegmentReplay?, swapping group: Set<UInt32>, for outputs: [IndexFile], limit: Int) throws -> ActiveSegmentReplay? {
        let (replay, entries, files) = state.withLock { s -> (ActiveSegmentReplay?, [IndexEntry], [IndexFile]) in
            guard let segment = s.manifest.activeSegment?.id else { return (nil, [], []) }
            let files = ActiveSegmentReplay.files(of: s.index, removing: group, adding: outputs)
            let replay = known.flatMap { $0.holds(segment: segment, files: files) ? $0 : nil } ?? ActiveSegmentReplay(segment: segment, files: files)
            var entries: [IndexEntry] = []
            s.index.overlay.forEachEntry { if $0.sequence > replay.through { entries.append($0) } }
            return (replay, entries, files)
        }
        guard var replay, replay.unaccounted(entries) <= limit else { return nil }
        // Commits apply in sequence order: a record applied after these is above them all.
        let through = entries.map(\.sequence).max() ?? replay.through
        return try replay.account(entries, through: through, in: files) ? replay : nil
    }
}
