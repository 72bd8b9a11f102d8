import Synchronization

/// Decompressed record blocks and index file blocks (FORMAT.md §7), kept within a byte
/// budget so that reading neighbouring records (fetch by id, faults of one block) costs
/// one `pread`, one checksum and one decompression per block, not per record. Frames
/// never change once written, so a cached block is never stale; blocks of deleted
/// segments simply age out.
///
/// Index blocks (fences, filters, packed data blocks: `PackedIndexBlock`) have priority,
/// as RocksDB's high-priority pool gives them: up to half the budget is theirs, and a
/// record block never evicts one while they hold no more than that. Records take
/// whatever the index leaves. Random reads over a store larger than the cache then miss
/// on the record block only, not on the index block before it too. Within each part,
/// eviction is CLOCK (second chance): a block read since the hand last passed it is
/// kept for another turn.
///
/// Record blocks are admitted sparingly while they only churn: when the cache is full
/// and fewer than half the record lookups of the last window hit, only one miss in
/// `churnAdmission` is kept (the others are read and dropped, as a walk past the cache's
/// size drops its frames). Random reads over a store many times the cache would
/// otherwise insert every block read just to evict one that is never read again: the
/// eviction, the free of a cold buffer and the insert cost more than the hits they
/// buy. A store that fits never evicts, and a hot set hits more than half the time, so
/// both admit every block; a hot set that moves still gets in, a sixteenth at a time.
final class BlockCache: Sendable {
    /// Segment frames use the segment id above the store's `cacheNamespace` as `file`;
    /// index files use an id with the top bit set, unique to each opening (`IndexFile.cacheID`).
    struct Key: Hashable {
        var file: UInt64
        var offset: UInt64

        var isIndex: Bool { file & (1 << 63) != 0 }
    }

    /// One part of the cache: its blocks on a ring the CLOCK hand walks. Parallel
    /// arrays, so that marking a block read touches one flag, not a copy of its slot.
    private struct Pool {
        var slots = BlockTable()
        var keys: [Key] = []
        var blocks: [[UInt8]] = []
        var referenced: [Bool] = []
        var free: [Int] = []
        var hand = 0
        var bytes = 0

        mutating func get(_ key: Key) -> [UInt8]? {
            guard let i = slots[key] else { return nil }
            referenced[i] = true
            return blocks[i]
        }

        mutating func insert(_ key: Key, _ block: [UInt8]) {
            let i: Int
            if let reused = free.popLast() {
                i = reused
                keys[i] = key
                blocks[i] = block
                referenced[i] = false
            } else {
                i = keys.count
                keys.append(key)
                blocks.append(block)
                referenced.append(false)
            }
            slots.set(key, i)
            bytes += block.capacity
        }

        /// Advances the hand to the first block not read since its last pass, clearing
        /// the marks it passes, and evicts it: at most two turns of the ring (a free
        /// slot holds an empty block and is skipped).
        mutating func evictOne() {
            guard !slots.isEmpty else { return }
            while true {
                if hand >= keys.count { hand = 0 }
                let i = hand
                hand += 1
                if referenced[i] {
                    referenced[i] = false
                    continue
                }
                guard !blocks[i].isEmpty, slots[keys[i]] == i else { continue }
                slots.remove(keys[i])
                bytes -= blocks[i].capacity
                blocks[i] = []
                free.append(i)
                return
            }
        }
    }

    private struct State {
        var index = Pool()
        var records = Pool()
        /// The bytes the cache may hold now: `budget`, or less while a migration counts
        /// the cache inside its own budget (`limit(to:)`).
        var limit: Int
        /// Record lookups and hits in the current window, and whether the last full
        /// window hit less than half the time (nothing is known before one ends).
        var lookups = 0
        var hits = 0
        var churning = false
        /// Record blocks turned away while churning since the last one admitted.
        var turnedAway = 0
        /// Record lookups and hits since the cache was made, for the hit ratio a
        /// service reports.
        var totalLookups = 0
        var totalHits = 0
    }

    /// Record lookups a window counts before it judges the hit rate.
    static let churnWindow = 1_024
    /// While churning, one record block in this many that would evict is admitted.
    static let churnAdmission = 16

    private let state: Locked<State>
    /// The bytes the cache was made with.
    let budget: Int

    init(budget: Int) {
        self.budget = budget
        self.state = Locked(State(limit: budget))
    }

    /// Holds the cache to `bytes` (never above its budget), evicting down to it now;
    /// nil gives it its whole budget back. A migration lowers it for its run, so that the
    /// cache it shares with its staging store is part of the migration's budget.
    /// The limit in force (the budget when none was set).
    var currentLimit: Int { state.withLock { $0.limit } }

    func limit(to bytes: Int?) {
        let limit = min(budget, max(0, bytes ?? budget))
        state.withLock { s in
            s.limit = limit
            while s.index.bytes + s.records.bytes > limit {
                if s.records.bytes > 0 { s.records.evictOne() } else if s.index.bytes > 0 { s.index.evictOne() } else { break }
            }
        }
    }

    func get(_ key: Key) -> [UInt8]? {
        guard budget > 0 else { return nil }
        return state.withLock { s in
            if key.isIndex { return s.index.get(key) }
            let found = s.records.get(key)
            s.lookups += 1
            s.totalLookups &+= 1
            if found != nil {
                s.hits += 1
                s.totalHits &+= 1
            }
            if s.lookups >= Self.churnWindow {
                s.churning = s.hits * 2 < s.lookups
                s.lookups = 0
                s.hits = 0
            }
            return found
        }
    }

    /// Record block lookups and hits since the cache was made.
    var lookupsAndHits: (lookups: Int, hits: Int) {
        state.withLock { ($0.totalLookups, $0.totalHits) }
    }

    func put(_ key: Key, _ block: [UInt8]) {
        guard budget > 0, !block.isEmpty else { return }
        state.withLock { s in
            // The index keeps up to half of the current limit however many record blocks come.
            let budget = s.limit, indexShare = s.limit / 2
            guard block.capacity <= budget / 4 else { return }
            if key.isIndex ? s.index.slots[key] != nil : s.records.slots[key] != nil { return }
            if !key.isIndex, s.churning, s.index.bytes + s.records.bytes + block.capacity > budget {
                s.turnedAway += 1
                guard s.turnedAway >= Self.churnAdmission else { return }
                s.turnedAway = 0
            }
            // What a block costs is the memory it holds (its capacity), not its count: a
            // frame's decompressed prefix sits in a buffer sized for the whole frame.
            while s.index.bytes + s.records.bytes + block.capacity > budget {
                // The index gives way only beyond its share (or when records hold nothing).
                let indexOver = s.index.bytes + (key.isIndex ? block.capacity : 0) > indexShare
                if (indexOver || s.records.bytes == 0) && s.index.bytes > 0 {
                    s.index.evictOne()
                } else if s.records.bytes > 0 {
                    s.records.evictOne()
                } else {
                    break
                }
            }
            if key.isIndex { s.index.insert(key, block) } else { s.records.insert(key, block) }
        }
    }

    /// Bytes held by index blocks and by record blocks (tests, statistics).
    var usage: (index: Int, records: Int) {
        state.withLock { s in (s.index.bytes, s.records.bytes) }
    }
}
