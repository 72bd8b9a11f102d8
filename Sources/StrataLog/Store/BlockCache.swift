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
    }

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
        return state.withLock { s in key.isIndex ? s.index.get(key) : s.records.get(key) }
    }

    func put(_ key: Key, _ block: [UInt8]) {
        guard budget > 0, !block.isEmpty else { return }
        state.withLock { s in
            // The index keeps up to half of the current limit however many record blocks come.
            let budget = s.limit, indexShare = s.limit / 2
            guard block.capacity <= budget / 4 else { return }
            if key.isIndex ? s.index.slots[key] != nil : s.records.slots[key] != nil { return }
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
