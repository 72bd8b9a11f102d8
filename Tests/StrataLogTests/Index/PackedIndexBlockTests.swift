import Testing
import StrataTestSupport
@testable import StrataLog

/// The cache's packed form of a data block answers every lookup as the block does:
/// random blocks of every width (dense and sparse keys, one or many sequences, small
/// and large records, tombstones), keys present and absent.
@Suite struct PackedIndexBlockTests {
    static func block(_ random: inout SeededRandom, count: Int, keyGap: Int, sequences: Int, largeRecords: Bool) -> [IndexEntry] {
        var key = UInt64(random.int(in: 0...1_000)) << (random.chance(50) ? 48 : 0)
        var frame: UInt32 = 100
        var record: UInt32 = 0
        let firstSequence = UInt64(random.int(in: 1...1_000_000))
        return (0..<count).map { _ in
            key += UInt64(random.int(in: 1...keyGap))
            if random.chance(2) {
                frame += 4_200
                record = 0
            }
            let length = UInt32(largeRecords ? random.int(in: 1...5_000_000) : random.int(in: 1...200))
            defer { record += length }
            return IndexEntry(key: RecordKey(key), sequence: firstSequence + UInt64(random.int(in: 0...(sequences - 1))),
                              isTombstone: random.chance(10),
                              location: RecordLocation(segment: 7, frameOffset: frame, frameLength: 4_100, recordOffset: record, recordLength: length),
                              blobs: [])
        }
    }

    /// The block as FORMAT.md §7.2 lays it out (its CRC is not the packer's concern).
    static func raw(_ entries: [IndexEntry]) -> [UInt8] {
        var w = ByteWriter()
        w.u32(UInt32(entries.count))
        for e in entries {
            w.u64(e.key.rawValue)
            w.u64(e.sequence)
            w.u8(e.isTombstone ? 2 : 1)
            w.u32(e.location.frameOffset)
            w.u32(e.location.frameLength)
            w.u32(e.location.recordOffset)
            w.u32(e.location.recordLength)
            w.u16(UInt16(e.blobs.count))
            for blob in e.blobs {
                w.u32(blob.file)
                w.u64(blob.offset)
                w.u64(blob.length)
                w.u32(blob.checksum)
            }
        }
        w.u32(0)
        return w.bytes
    }

    @Test func answersEveryLookupAsTheEntriesDo() throws {
        var random = SeededRandom(seed: 5)
        for round in 0..<200 {
            let entries = Self.block(&random, count: random.int(in: 1...300), keyGap: [1, 3, 70_000, 1 << 40][round % 4],
                                     sequences: [1, 200, 100_000][round % 3], largeRecords: round % 5 == 0)
            let packed = try #require(PackedIndexBlock.pack(block: Self.raw(entries)))
            for entry in entries {
                #expect(PackedIndexBlock.findSlot(entry.key, in: packed, segmentID: 7).map { IndexEntry($0, blobs: []) } == entry)
            }
            let keys = Set(entries.map(\.key))
            for probe in [entries[0].key.rawValue &- 1, entries[entries.count - 1].key.rawValue &+ 1, entries[0].key.rawValue &+ 1, 0, .max]
            where !keys.contains(RecordKey(probe)) {
                #expect(PackedIndexBlock.findSlot(RecordKey(probe), in: packed, segmentID: 7) == nil)
            }
        }
    }

    /// A range walk reads a cached block from its packed form: every entry comes back,
    /// in order, as decoding the raw block gives it.
    @Test func unpacksToTheEntriesTheRawBlockDecodesTo() throws {
        var random = SeededRandom(seed: 6)
        for round in 0..<200 {
            let entries = Self.block(&random, count: random.int(in: 1...300), keyGap: [1, 3, 70_000, 1 << 40][round % 4],
                                     sequences: [1, 200, 100_000][round % 3], largeRecords: round % 5 == 0)
            let raw = Self.raw(entries)
            let packed = try #require(PackedIndexBlock.pack(block: raw))
            let slots = try #require(PackedIndexBlock.slots(of: packed, segmentID: 7))
            let decoded = try IndexFile.decodeSlots(raw, segmentID: 7, path: "t", baseOffset: 0)
            #expect(slots.map { IndexEntry($0, blobs: []) } == decoded.map { IndexEntry($0, blobs: []) })
            #expect(slots.map { IndexEntry($0, blobs: []) } == entries)
        }
        // A packed block cut short is refused, not read past its end.
        var random2 = SeededRandom(seed: 8)
        let packed = try #require(PackedIndexBlock.pack(block: Self.raw(Self.block(&random2, count: 50, keyGap: 1, sequences: 1, largeRecords: false))))
        #expect(PackedIndexBlock.slots(of: Array(packed.dropLast()), segmentID: 7) == nil)
        #expect(PackedIndexBlock.slots(of: Array(packed.prefix(PackedIndexBlock.headerSize - 1)), segmentID: 7) == nil)
    }

    @Test func isSmallerThanTheBlockForABulkTransaction() throws {
        var random = SeededRandom(seed: 9)
        let entries = Self.block(&random, count: 117, keyGap: 1, sequences: 1, largeRecords: false)
        let packed = try #require(PackedIndexBlock.pack(block: Self.raw(entries)))
        #expect(packed.count * 4 < 4 + 35 * entries.count, "\(packed.count) bytes for \(entries.count) entries")
    }

    @Test func blocksWithBlobsAreNotPacked() {
        var random = SeededRandom(seed: 3)
        var entries = Self.block(&random, count: 10, keyGap: 2, sequences: 1, largeRecords: false)
        entries[4].blobs = [BlobRef(file: 1, offset: 8, length: 100, checksum: 0)]
        #expect(PackedIndexBlock.pack(block: Self.raw(entries)) == nil)
    }

    /// A block that breaks §7.2 is not packed, so that decoding it names the damage.
    @Test func damagedBlocksAreNotPacked() {
        var random = SeededRandom(seed: 4)
        let entries = Self.block(&random, count: 10, keyGap: 2, sequences: 1, largeRecords: false)
        var unordered = Self.raw(entries)
        unordered.replaceSubrange(4..<12, with: Self.raw([entries[9]])[4..<12])   // first key = last key
        var kind = Self.raw(entries)
        kind[4 + 3 * 35 + 16] = 9
        var trailing = Self.raw(entries)
        trailing.insert(0, at: trailing.count - 4)
        var counted = Self.raw(entries)
        counted[0] = 11
        #expect(PackedIndexBlock.pack(block: Self.raw(entries)) != nil)
        for block in [unordered, kind, trailing, counted] { #expect(PackedIndexBlock.pack(block: block) == nil) }
    }
}

/// The block cache keeps what is read often (CLOCK): a block read between every
/// insertion survives a flood of blocks many times the budget, and the budget holds.
@Suite struct BlockCacheTests {
    @Test func aBlockReadOftenSurvivesAFloodWithinTheBudget() {
        let cache = BlockCache(budget: 64 << 10)
        let hot = BlockCache.Key(file: 1, offset: 0)
        cache.put(hot, [UInt8](repeating: 7, count: 4_096))
        for i in 1...1_000 {
            #expect(cache.get(hot)?.count == 4_096, "evicted after \(i) insertions")
            cache.put(BlockCache.Key(file: 2, offset: UInt64(i)), [UInt8](repeating: 1, count: 4_096))
        }
        let kept = (1...1_000).filter { cache.get(BlockCache.Key(file: 2, offset: UInt64($0))) != nil }
        #expect((kept.count + 1) * 4_096 <= 64 << 10)
        #expect(kept.count >= 8, "the cache still holds recent blocks: \(kept.count)")
    }
}

extension BlockCacheTests {
    /// Index blocks keep their share however many record blocks come, and give way to
    /// each other beyond it; records use what the index leaves.
    @Test func indexBlocksKeepTheirShareAgainstRecords() {
        let cache = BlockCache(budget: 64 << 10)
        let index = (0..<4).map { BlockCache.Key(file: 1 << 63 | 9, offset: UInt64($0)) }
        let indexBlocks = index.map { _ in [UInt8](repeating: 2, count: 4_096) }
        for (key, block) in zip(index, indexBlocks) { cache.put(key, block) }
        let recordBlocks = (0..<100).map { _ in [UInt8](repeating: 1, count: 4_096) }
        for (i, block) in recordBlocks.enumerated() { cache.put(BlockCache.Key(file: 3, offset: UInt64(i)), block) }
        #expect(index.allSatisfy { cache.get($0) != nil }, "records never evict index blocks within the share")
        // The cache counts what blocks hold: their capacity, a little over 4 KiB each,
        // and not always the same (the allocator may hand out a chunk a few bytes
        // larger). Records fill what the four index blocks leave, to the last whole block.
        #expect(cache.usage.index == indexBlocks.reduce(0) { $0 + $1.capacity })
        let left = (64 << 10) - cache.usage.index
        let largest = recordBlocks.map(\.capacity).max() ?? 0
        #expect(cache.usage.records <= left && cache.usage.records > left - largest, "\(cache.usage)")
        for i in 4..<40 { cache.put(BlockCache.Key(file: 1 << 63 | 9, offset: UInt64(i)), [UInt8](repeating: 2, count: 4_096)) }
        #expect(cache.usage.index <= 32 << 10 + 4_096 && cache.usage.index >= 28 << 10, "\(cache.usage)")
        #expect(cache.usage.index + cache.usage.records <= 64 << 10)
    }
}

/// The cache's hash table answers as a dictionary does across inserts, overwrites,
/// removals (backward shift) and growth, with keys that collide in their low bits.
@Suite struct BlockTableTests {
    @Test func agreesWithADictionary() {
        var random = SeededRandom(seed: 21)
        var table = BlockTable()
        var plain: [BlockCache.Key: Int] = [:]
        for step in 0..<60_000 {
            let key = BlockCache.Key(file: UInt64(random.int(in: 0...3)) << 63 | UInt64(random.int(in: 0...5)),
                                     offset: UInt64(random.int(in: 0...2_000)) << 12)
            if random.chance(40) {
                table.remove(key)
                plain[key] = nil
            } else {
                table.set(key, step)
                plain[key] = step
            }
            if step % 997 == 0 {
                #expect(table.count == plain.count)
                for (k, v) in plain { #expect(table[k] == v) }
            }
            let probe = BlockCache.Key(file: UInt64(random.int(in: 0...5)), offset: UInt64(random.int(in: 0...2_000)) << 12)
            #expect(table[probe] == plain[probe])
        }
    }
}
