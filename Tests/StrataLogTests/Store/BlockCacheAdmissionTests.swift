import Testing
@testable import StrataLog

/// Record blocks that only churn are admitted one in `churnAdmission` (random reads
/// over a store many times the cache); a cache with room, or whose record lookups hit
/// half the time or more, admits every block.
extension BlockCacheTests {
    static func block() -> [UInt8] { [UInt8](repeating: 1, count: 4_096) }
    static func record(_ i: Int) -> BlockCache.Key { BlockCache.Key(file: 5, offset: UInt64(i)) }

    /// A full cache and a window of misses: then only every sixteenth new block stays.
    @Test func aFullCacheWhoseLookupsMissAdmitsOneBlockInSixteen() {
        let cache = BlockCache(budget: 64 << 10)
        for i in 0..<32 { cache.put(Self.record(i), Self.block()) }
        let held = cache.usage.records
        // A window of lookups that all miss (each read and offered, as a random read does).
        for i in 1_000..<(1_000 + BlockCache.churnWindow) { #expect(cache.get(Self.record(i)) == nil) }
        let offered = (5_000..<(5_000 + 4 * BlockCache.churnAdmission)).map(Self.record)
        for key in offered { cache.put(key, Self.block()) }
        let admitted = offered.filter { cache.get($0) != nil }
        #expect(admitted.count == 4, "\(admitted.count) of \(offered.count) admitted")
        // The budget still holds; the blocks replaced may differ from those admitted by
        // the few bytes an allocator rounds a 4 KiB block's capacity up by.
        #expect(cache.usage.index + cache.usage.records <= 64 << 10, "the budget still holds")
        #expect(abs(cache.usage.records - held) < 4_096, "\(cache.usage.records) held, \(held) before")
    }

    /// The same misses with room left: nothing needs evicting, so every block stays.
    @Test func aCacheWithRoomAdmitsEveryBlockWhateverItsHitRate() {
        let cache = BlockCache(budget: 1 << 20)
        for i in 1_000..<(1_000 + BlockCache.churnWindow) { _ = cache.get(Self.record(i)) }
        let offered = (0..<40).map(Self.record)
        for key in offered { cache.put(key, Self.block()) }
        #expect(offered.allSatisfy { cache.get($0) != nil })
    }

    /// A full cache whose lookups hit half the time or more keeps replacing blocks by
    /// CLOCK: every new block is admitted.
    @Test func aFullCacheWhoseLookupsHitAdmitsEveryBlock() {
        let cache = BlockCache(budget: 64 << 10)
        for i in 0..<32 { cache.put(Self.record(i), Self.block()) }
        let hot = Self.record(31) // the last put: still held
        // Three hits for each miss over a window.
        for i in 0..<BlockCache.churnWindow { _ = i % 4 == 0 ? cache.get(Self.record(10_000 + i)) : cache.get(hot) }
        let offered = (5_000..<5_020).map(Self.record)
        for key in offered {
            cache.put(key, Self.block())
            #expect(cache.get(key) != nil, "\(key.offset) turned away")
        }
    }

    /// Churn ends when a window hits again: admission is judged window by window.
    @Test func admissionReturnsOnceAWindowHits() {
        let cache = BlockCache(budget: 64 << 10)
        for i in 0..<32 { cache.put(Self.record(i), Self.block()) }
        for i in 1_000..<(1_000 + BlockCache.churnWindow) { _ = cache.get(Self.record(i)) }
        cache.put(Self.record(7_000), Self.block())
        #expect(cache.get(Self.record(7_000)) == nil, "turned away while churning")
        let kept = (0..<32).map(Self.record).first { cache.get($0) != nil }
        for _ in 0..<BlockCache.churnWindow { _ = kept.flatMap { cache.get($0) } }
        cache.put(Self.record(7_001), Self.block())
        #expect(cache.get(Self.record(7_001)) != nil)
    }
}
