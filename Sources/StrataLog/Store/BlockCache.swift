import Synchronization

/// Decompressed record blocks and index file blocks (FORMAT.md §7), kept within a byte budget so that reading neighbouring
/// records (fetch by id, faults of one block) costs one `pread`, one checksum and one
/// decompression per block, not per record. Frames never change once written, so a
/// cached block is never stale; blocks of deleted segments simply age out.
final class BlockCache: Sendable {
    /// Segment frames use the segment id above the store's `cacheNamespace` as `file`;
    /// index files use an id with the top bit set, unique to each opening (`IndexFile.cacheID`).
    struct Key: Hashable {
        var file: UInt64
        var offset: UInt64
    }

    private struct State {
        var blocks: [Key: [UInt8]] = [:]
        /// Insertion order for eviction (first in, first out).
        var order: [Key] = []
        var head = 0
        var bytes = 0
    }

    private let state = Locked(State())
    let budget: Int

    init(budget: Int) { self.budget = budget }

    func get(_ key: Key) -> [UInt8]? {
        guard budget > 0 else { return nil }
        return state.withLock { $0.blocks[key] }
    }

    func put(_ key: Key, _ block: [UInt8]) {
        guard budget > 0, block.count <= budget / 4 else { return }
        state.withLock { s in
            guard s.blocks[key] == nil else { return }
            s.blocks[key] = block
            s.order.append(key)
            s.bytes += block.count
            while s.bytes > budget, s.head < s.order.count {
                let victim = s.order[s.head]
                s.head += 1
                if let evicted = s.blocks.removeValue(forKey: victim) { s.bytes -= evicted.count }
            }
            if s.head > 4096 && s.head * 2 > s.order.count {
                s.order.removeFirst(s.head)
                s.head = 0
            }
        }
    }
}
