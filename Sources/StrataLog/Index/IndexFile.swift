import Synchronization

/// A sealed segment's index file (FORMAT.md §7), read through the store's block cache:
/// only the footer stays in memory. A lookup checks the key range, probes the Bloom
/// filter, binary-searches the data fence and reads one data block.
///
/// Every block is checked against its CRC when read from disk; a damaged block throws
/// `IndexFile.Damage`, which the store answers by rebuilding the file from its segment
/// (FORMAT.md §4.2) — index files are derived data.
final class IndexFile: Sendable {
    /// A block of this file failed its checks: the file must be rebuilt.
    struct Damage: Error {
        var segmentID: UInt32
        var error: StrataError
    }

    let segmentID: UInt32
    let file: any StorageFile
    let footer: IndexFooter
    let cache: BlockCache
    /// Distinguishes this opening in the cache: a rebuilt file of the same segment
    /// must never be served another file's blocks.
    let cacheID: UInt64

    private static let serials = Atomic<UInt64>(1)

    /// The first and last key this file holds under one prefix: a key's high 16 bits,
    /// the object layer's entity tag.
    struct PrefixRun: Equatable {
        var prefix: UInt16
        var first: UInt64
        var last: UInt64
    }

    /// The file's prefix runs, found at the first lookup that needs them: at most two
    /// data blocks per prefix, once per opening, nothing at open. Written once, under
    /// `prefixRunsLock`, before `prefixRunsKnown` is set (release); read only after it
    /// is seen set (acquire), so a lookup passing hundreds of files takes no lock for
    /// each (a migration's staging store at ten million objects has 600 of them).
    private nonisolated(unsafe) var knownPrefixRuns: [PrefixRun] = []
    private let prefixRunsKnown = Atomic<Bool>(false)
    private let prefixRunsLock = Mutex<Void>(())

    var path: String { file.path }

    /// Opens an index file and checks its footer against the segment it must describe.
    init(file: any StorageFile, segmentID: UInt32, storeID: [UInt8], cache: BlockCache) throws {
        let size = try file.size()
        guard size >= Int64(IndexFooter.size) else { throw StrataError(.corrupt, "index file shorter than its footer", path: file.path, offset: 0) }
        let footer = try IndexFooter.decode(try file.readExactly(IndexFooter.size, at: size - Int64(IndexFooter.size)), fileSize: size, path: file.path)
        guard footer.segmentID == segmentID, footer.storeID == storeID else {
            throw StrataError(.corrupt, "index file belongs to another segment or store (segment \(footer.segmentID), expected \(segmentID))", path: file.path, offset: size - Int64(IndexFooter.size))
        }
        self.segmentID = segmentID
        self.file = file
        self.footer = footer
        self.cache = cache
        self.cacheID = Self.serials.wrappingAdd(1, ordering: .relaxed).oldValue | (1 << 63)
    }

    /// A block by handle, CRC checked once when read from disk, then served by the cache.
    private func block(_ offset: UInt64, _ length: UInt64, what: String, caching: Bool = true) throws(Damage) -> [UInt8] {
        let key = BlockCache.Key(file: cacheID, offset: offset)
        if let cached = cache.get(key) { return cached }
        let bytes: [UInt8]
        do {
            guard length >= 8, length <= UInt64(Int32.max), offset <= UInt64(Int64.max) else {
                throw StrataError(.corrupt, "index \(what) block length \(length) is impossible", path: path, offset: Int64(clamping: offset))
            }
            bytes = try file.readExactly(Int(length), at: Int64(offset))
            let body = bytes.count - 4
            var r = ByteReader(bytes, from: body)
            guard try r.u32() == CRC32C.checksum(bytes[0..<body]) else {
                throw StrataError(.corrupt, "index \(what) block checksum mismatch", path: path, offset: Int64(offset))
            }
        } catch let error as StrataError {
            throw Damage(segmentID: segmentID, error: error)
        } catch {
            throw Damage(segmentID: segmentID, error: StrataError(.io, "\(error)", path: path, offset: Int64(clamping: offset)))
        }
        if caching { cache.put(key, bytes) }
        return bytes
    }

    private func damage(_ message: String, at offset: UInt64) -> Damage {
        Damage(segmentID: segmentID, error: StrataError(.corrupt, message, path: path, offset: Int64(clamping: offset)))
    }

    /// Whether `key` lies in this file's key range and passes its filter.
    func mayContain(_ key: RecordKey) throws(Damage) -> Bool {
        var memo = LookupMemo()
        return try mayContain(key, memo: &memo)
    }

    /// ``mayContain(_:)`` keeping the filter in `memo` for the lookups after it.
    func mayContain(_ key: RecordKey, memo: inout LookupMemo) throws(Damage) -> Bool {
        guard footer.entryCount > 0, key.rawValue >= footer.minKey, key.rawValue <= footer.maxKey else { return false }
        // A segment written by transactions that touch several entities (a migration
        // writes employees and their photos together) has a key range spanning the gap
        // between them, so a new employee's key lay in the range of every older such
        // segment and each lookup asked them all for their filter. Within one prefix
        // keys rise with time: the prefix's own range excludes them.
        if IndexCounters.prefix(RecordKey(footer.minKey)) != IndexCounters.prefix(RecordKey(footer.maxKey)) {
            guard let run = try prefixRun(IndexCounters.prefix(key)),
                  key.rawValue >= run.first, key.rawValue <= run.last else { return false }
        }
        // A filter too big for the cache (one transaction of millions of keys makes a
        // segment whose filter is megabytes) would be read from disk at every lookup:
        // the data fence answers instead. The filter only saves reads; it decides nothing.
        guard footer.filter.length <= UInt64(cache.budget / 4) else { return true }
        // A file holding every key of its range (one bulk transaction: keys are
        // allocated in increasing serials) has nothing for its filter to exclude.
        guard footer.maxKey - footer.minKey != footer.entryCount - 1 else { return true }
        if memo.filter.isEmpty { memo.filter = try block(footer.filter.offset, footer.filter.length, what: "filter") }
        return BloomFilter.mayContain(key, block: memo.filter)
    }

    // MARK: Prefix runs

    /// The run of `prefix` in this file; nil when the file holds no key under it.
    func prefixRun(_ prefix: UInt16) throws(Damage) -> PrefixRun? {
        if !prefixRunsKnown.load(ordering: .acquiring) {
            // Two readers may both find them (the same runs); one publishes.
            let runs = try findPrefixRuns()
            prefixRunsLock.withLock { _ in
                guard !prefixRunsKnown.load(ordering: .relaxed) else { return }
                knownPrefixRuns = runs
                prefixRunsKnown.store(true, ordering: .releasing)
            }
        }
        return knownPrefixRuns.first { $0.prefix == prefix }
    }

    /// Every prefix's first and last key: for each prefix present, the data block that
    /// holds its first key (a cursor) and the one that holds the first key past it.
    func findPrefixRuns() throws(Damage) -> [PrefixRun] {
        var runs: [PrefixRun] = []
        var from = RecordKey(footer.minKey)
        while footer.entryCount > 0, let first = try cursor(from: from).currentKey {
            let prefix = IndexCounters.prefix(first)
            let next = UInt64(prefix) + 1
            let last = next > UInt64(UInt16.max) ? RecordKey(footer.maxKey) : try lastKey(from: first, below: RecordKey(next << 48))
            guard runs.count < 1 << 16, let last, last >= first else {
                throw damage("data blocks disagree with their fence about the keys of prefix \(prefix)", at: footer.dataFence.offset)
            }
            runs.append(PrefixRun(prefix: prefix, first: first.rawValue, last: last.rawValue))
            guard next <= UInt64(UInt16.max), last.rawValue < footer.maxKey else { break }
            from = RecordKey(next << 48)
        }
        return runs
    }

    // MARK: Data blocks

    /// The data fence: `count` entries of (last key u64, offset u64, length u32).
    private func dataFence() throws(Damage) -> (bytes: [UInt8], count: Int) {
        let bytes = try block(footer.dataFence.offset, footer.dataFence.length, what: "data fence")
        let count = Int(Self.u32(bytes, 0))
        guard count <= (bytes.count - 8) / 20 else { throw damage("data fence count \(count) exceeds its block", at: footer.dataFence.offset) }
        return (bytes, count)
    }

    private func fenceHandle(_ fence: [UInt8], _ i: Int) -> (last: UInt64, offset: UInt64, length: UInt64) {
        let at = 4 + i * 20
        return (Self.u64(fence, at), Self.u64(fence, at + 8), UInt64(Self.u32(fence, at + 16)))
    }

    /// The first fence position whose last key is ≥ `key` (`count` when none).
    private func fencePosition(_ fence: [UInt8], count: Int, atLeast key: UInt64) -> Int {
        fence.withUnsafeBytes { raw in
            Self.firstPosition(count: count, atLeast: key) { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 4 + $0 * 20, as: UInt64.self)) }
        }
    }

    /// The first position in `0..<count` whose key (ascending) is ≥ `key`; `count` when
    /// none. Keys are allocated per entity in increasing serials, so a file's fence keys
    /// mostly rise in even steps: the search starts where the key would lie if they did
    /// (interpolation between the first and the last), then gallops outwards from there
    /// to bracket the answer and bisects the bracket. Dense keys take three or four
    /// probes, next to one another, where bisecting a million-key file's 8,500 fences
    /// takes thirteen scattered over 170 KB; the worst case is about twice bisection's.
    static func firstPosition(count: Int, atLeast key: UInt64, _ keyAt: (Int) -> UInt64) -> Int {
        guard count > 0 else { return 0 }
        let first = keyAt(0)
        if key <= first { return 0 }
        let last = keyAt(count - 1)
        if key > last { return count }
        // Now keyAt(0) < key ≤ keyAt(count - 1): the answer lies in 1..<count.
        let span = Double(last - first)
        var guess = Int(Double(key - first) / span * Double(count - 1))
        guess = min(max(guess, 1), count - 1)
        var low: Int, high: Int // the answer lies in low...high
        let atGuess = keyAt(guess)
        // Dense serials land exactly: the guess is the answer when the key before it is
        // smaller (`guess` ≥ 1), without galloping left and bisecting a bracket of two.
        if atGuess >= key, keyAt(guess - 1) < key { return guess }
        if atGuess < key {
            // Gallop right: the answer is past `guess`.
            var step = 1
            low = guess + 1
            high = min(count - 1, guess + step)
            while keyAt(high) < key {
                low = high + 1
                step *= 2
                high = min(count - 1, high + step)
            }
        } else {
            // Gallop left: `guess` may be the answer, or lie past it.
            var step = 1
            high = guess
            low = max(1, guess - step)
            while low > 1 && keyAt(low - 1) >= key {
                high = low - 1
                step *= 2
                low = max(1, low - step)
            }
        }
        while low < high {
            let mid = (low + high) / 2
            if keyAt(mid) < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The entries of data block `i` of the fence as slots, with the block their blob
    /// references lie in (empty when none has any).
    private func dataBlockSlots(_ fence: [UInt8], _ i: Int) throws(Damage) -> (slots: [IndexSlot], block: [UInt8]) {
        let handle = fenceHandle(fence, i)
        guard handle.offset <= footer.dataFence.offset, handle.length <= footer.dataFence.offset - handle.offset else {
            throw damage("data block handle lies outside the data area", at: footer.dataFence.offset)
        }
        // Kept packed, as lookups keep them (`entry(_:memo:)`): the raw 4 KiB blocks of
        // a large index outgrow the index's share of the cache, so every scan would read
        // and check the whole index from disk again and push out the packed blocks
        // random reads use. Packed, the same index is several times smaller and stays.
        let packedKey = BlockCache.Key(file: cacheID, offset: handle.offset | Self.packedFlag)
        if let packed = cache.get(packedKey), let slots = PackedIndexBlock.slots(of: packed, segmentID: segmentID) {
            return (slots, [])
        }
        let rawKey = BlockCache.Key(file: cacheID, offset: handle.offset)
        let cached = cache.get(rawKey)
        let bytes: [UInt8]
        if let cached { bytes = cached } else { bytes = try block(handle.offset, handle.length, what: "data", caching: false) }
        do {
            let slots = try Self.decodeSlots(bytes, segmentID: segmentID, path: path, baseOffset: Int64(handle.offset))
            if cached == nil {
                if let packed = PackedIndexBlock.pack(block: bytes) { cache.put(packedKey, packed) } else { cache.put(rawKey, bytes) }
            }
            return (slots, bytes)
        } catch let error as StrataError {
            throw Damage(segmentID: segmentID, error: error)
        } catch {
            throw damage("\(error)", at: handle.offset)
        }
    }

    /// A data block's entries as slots, checked as FORMAT.md §7.2 says; a slot with
    /// blob references names where they lie in the block (`blobs(in:at:)`).
    static func decodeSlots(_ bytes: [UInt8], segmentID: UInt32, path: String, baseOffset: Int64) throws -> [IndexSlot] {
        var r = ByteReader(bytes, to: bytes.count - 4, path: path, baseOffset: baseOffset)
        let count = Int(try r.u32("entry count"))
        guard count <= r.remaining / 35 else { throw r.corrupt("data block entry count \(count) exceeds the block") }
        var slots: [IndexSlot] = []
        slots.reserveCapacity(count)
        var previous: UInt64?
        // Each entry is read straight from the bytes, with one bounds check for its
        // fixed part and one for its blob references, which are checked but not
        // decoded: a walk over keys (a fetch's listing) has no use for them, and a
        // list made per entry would be an allocation per key listed for an entity
        // whose records all carry one. Anything off, damage included, takes the
        // field-by-field reader, which names what is wrong.
        try bytes.withUnsafeBytes { b in
            for _ in 0..<count {
                let slot: IndexSlot
                if let (fixed, size) = fastSlot(b, at: r.position, end: r.end, segmentID: segmentID) {
                    try r.skip(size)
                    slot = fixed
                } else {
                    let at = r.position
                    let entry = try decodeEntry(&r, segmentID: segmentID)
                    guard let list = Int32(exactly: at + blobCountOffset) else { throw r.corrupt("a data block past 2 GiB") }
                    slot = IndexSlot(entry, blobList: list)
                }
                if let previous, slot.key.rawValue <= previous { throw r.corrupt("data block keys out of order") }
                previous = slot.key.rawValue
                slots.append(slot)
            }
        }
        guard r.isAtEnd else { throw r.corrupt("bytes after the last entry of a data block") }
        return slots
    }

    /// Where an entry's blob count lies from its start; its references follow it.
    static let blobCountOffset = 33

    /// The entry at `at` and its size when it is whole, of a known kind, and its blob
    /// references (if any) lie in the block and within the limits `decodeBlob` checks;
    /// nil otherwise (the caller decodes it field by field). The slot's `blobList` is
    /// the block offset of its blob count (`blobs(in:at:)`), -1 when it has none.
    @inline(__always)
    private static func fastSlot(_ b: UnsafeRawBufferPointer, at: Int, end: Int, segmentID: UInt32) -> (IndexSlot, Int)? {
        guard at >= 0, at + 35 <= end, end <= b.count, let kind = RecordKind(rawValue: b[at + 16]) else { return nil }
        func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: b.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
        func u64(_ o: Int) -> UInt64 { UInt64(littleEndian: b.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
        let blobCount = Int(b[at + 33]) | Int(b[at + 34]) << 8
        let size = 35 + blobCount * BlobRef.encodedSize
        // The list's offset is kept in 32 bits: a block past 2 GiB (only damage makes
        // one) takes the reader, which refuses it.
        guard size <= end - at, let list = Int32(exactly: at + blobCountOffset) else { return nil }
        // The limits `RecordCodec.decodeBlob` checks, on its layout: file u32, offset
        // u64, length u64, checksum u32.
        var ref = at + 35
        for _ in 0..<blobCount {
            guard u64(ref + 4) <= Format.maxBlobOffset, u64(ref + 12) <= Format.maxBlobLength else { return nil }
            ref += BlobRef.encodedSize
        }
        let slot = IndexSlot(key: RecordKey(u64(at)), sequence: u64(at + 8), isTombstone: kind == .tombstone,
                             location: RecordLocation(segment: segmentID, frameOffset: u32(at + 17), frameLength: u32(at + 21),
                                                      recordOffset: u32(at + 25), recordLength: u32(at + 29)),
                             blobList: blobCount == 0 ? -1 : list)
        return (slot, size)
    }

    /// The blob references of the entry whose blob count lies at `offset` of `block`
    /// (a slot's `blobList`), which `decodeSlots` checked: none when the offset does
    /// not name a list the block holds. Read as `decodeEntry` reads them, so the
    /// references' layout has one reader (`RecordCodec.decodeBlob`).
    static func blobs(in block: [UInt8], at offset: Int32) -> [BlobRef] {
        guard offset >= 0 else { return [] }
        var r = ByteReader(block, from: Int(offset))
        guard let count = try? Int(r.u16("blob count")), count <= r.remaining / BlobRef.encodedSize else { return [] }
        var refs: [BlobRef] = []
        refs.reserveCapacity(count)
        for _ in 0..<count {
            guard let ref = try? RecordCodec.decodeBlob(&r) else { return [] }
            refs.append(ref)
        }
        return refs
    }

    static func decodeEntry(_ r: inout ByteReader, segmentID: UInt32) throws -> IndexEntry {
        let key = try r.u64("key")
        let sequence = try r.u64("sequence")
        let kind = try r.u8("kind")
        guard let recordKind = RecordKind(rawValue: kind) else { throw r.corrupt("unknown record kind \(kind)") }
        let location = RecordLocation(segment: segmentID, frameOffset: try r.u32(), frameLength: try r.u32(),
                                      recordOffset: try r.u32(), recordLength: try r.u32())
        let blobCount = Int(try r.u16("blob count"))
        guard blobCount <= r.remaining / BlobRef.encodedSize else { throw r.corrupt("blob count \(blobCount) exceeds the block") }
        var blobs: [BlobRef] = []
        if blobCount > 0 {
            blobs.reserveCapacity(blobCount)
            for _ in 0..<blobCount { blobs.append(try RecordCodec.decodeBlob(&r)) }
        }
        return IndexEntry(key: RecordKey(key), sequence: sequence, isTombstone: recordKind == .tombstone, location: location, blobs: blobs)
    }

    /// This file's entry for `key`, if it has one.
    func entry(_ key: RecordKey) throws(Damage) -> IndexEntry? {
        var memo = LookupMemo()
        return try entry(key, memo: &memo)
    }

    /// ``entry(_:)`` reusing what `memo` holds from earlier lookups in this file (the
    /// same answer: the fence and a packed block do not change while the file exists).
    func entry(_ key: RecordKey, memo: inout LookupMemo) throws(Damage) -> IndexEntry? {
        try lookup(key, memo: &memo, packed: { IndexEntry($0, blobs: []) }, raw: { $0 })
    }

    /// ``entry(_:memo:)`` without its blob references (`blobList` is -1): what an index
    /// read's candidates need to be located, trivially copied.
    func locatedSlot(_ key: RecordKey, memo: inout LookupMemo) throws(Damage) -> IndexSlot? {
        try lookup(key, memo: &memo, packed: { $0 }, raw: { IndexSlot($0, blobList: -1) })
    }

    /// The lookup behind ``entry(_:memo:)`` and ``locatedSlot(_:memo:)``: a packed
    /// block's answer is handed to `packed`, a raw block's (blob references) to `raw`.
    @inline(__always)
    private func lookup<Answer>(_ key: RecordKey, memo: inout LookupMemo, packed answerPacked: (IndexSlot) -> Answer,
                                raw answerRaw: (IndexEntry) -> Answer) throws(Damage) -> Answer? {
        guard try mayContain(key, memo: &memo) else { return nil }
        if memo.fenceCount < 0 { (memo.fence, memo.fenceCount) = try dataFence() }
        let i = fencePosition(memo.fence, count: memo.fenceCount, atLeast: key.rawValue)
        guard i < memo.fenceCount else { return nil }
        let handle = fenceHandle(memo.fence, i)
        guard handle.offset <= footer.dataFence.offset, handle.length <= footer.dataFence.offset - handle.offset else {
            throw damage("data block handle lies outside the data area", at: footer.dataFence.offset)
        }
        if handle.offset == memo.blockOffset { return PackedIndexBlock.findSlot(key, in: memo.packed, segmentID: segmentID).map(answerPacked) }
        let fills = memo.fillsCache
        // The block's packed form (PackedIndexBlock) when the cache has it, else the
        // block read, checked whole and packed for the next lookup; a block that does
        // not pack (blob references) is cached and walked as it is.
        func found(in packed: [UInt8]) -> Answer? {
            memo.blockOffset = handle.offset
            memo.packed = packed
            return PackedIndexBlock.findSlot(key, in: packed, segmentID: segmentID).map(answerPacked)
        }
        let packedKey = BlockCache.Key(file: cacheID, offset: handle.offset | Self.packedFlag)
        if let packed = cache.get(packedKey) { return found(in: packed) }
        let rawKey = BlockCache.Key(file: cacheID, offset: handle.offset)
        let bytes: [UInt8]
        if handle.offset == memo.rawBlockOffset {
            bytes = memo.raw
        } else if let cached = cache.get(rawKey) {
            // Cached raw by a range walk (which decodes whole blocks): packed now as
            // well, or every later lookup in it would walk half its entries.
            if let packed = PackedIndexBlock.pack(block: cached) {
                if fills { cache.put(packedKey, packed) }
                return found(in: packed)
            }
            bytes = cached
        } else {
            let read = try block(handle.offset, handle.length, what: "data", caching: false)
            if let packed = PackedIndexBlock.pack(block: read) {
                if fills { cache.put(packedKey, packed) }
                return found(in: packed)
            }
            // Not packed: blob references, or damage, which decoding names.
            do {
                _ = try Self.decodeSlots(read, segmentID: segmentID, path: path, baseOffset: Int64(handle.offset))
            } catch let error as StrataError {
                throw Damage(segmentID: segmentID, error: error)
            } catch {
                throw damage("\(error)", at: handle.offset)
            }
            if fills {
                cache.put(rawKey, read)
            } else {
                memo.rawBlockOffset = handle.offset
                memo.raw = read
            }
            bytes = read
        }
        // Walk the raw block, decoding only the entry asked for: a lookup is then one
        // pass over about a hundred fixed-width heads, without an allocation per entry.
        let end = bytes.count - 4
        let entryCount = Int(Self.u32(bytes, 0))
        var at = 4
        for _ in 0..<entryCount {
            guard at + 35 <= end else { break }
            let k = Self.u64(bytes, at)
            if k > key.rawValue { return nil }
            let blobCount = Int(bytes[at + 33]) | Int(bytes[at + 34]) << 8
            if k == key.rawValue {
                do {
                    var r = ByteReader(bytes, from: at, to: end, path: path, baseOffset: Int64(handle.offset))
                    return answerRaw(try Self.decodeEntry(&r, segmentID: segmentID))
                } catch let error as StrataError {
                    throw Damage(segmentID: segmentID, error: error)
                } catch {
                    throw damage("\(error)", at: handle.offset)
                }
            }
            at += 35 + blobCount * BlobRef.encodedSize
        }
        return nil
    }

    /// What a run of lookups in this file keeps between them: the data fence, the
    /// Bloom filter, and the packed block the last lookup found its key in. An index
    /// read's candidates (a term's keys, ascending) are looked up one after another;
    /// without a memo each would fetch the fence, filter and block from the cache
    /// again, a lock and a hash apiece.
    struct LookupMemo {
        fileprivate var fence: [UInt8] = []
        fileprivate var fenceCount = -1
        fileprivate var blockOffset = UInt64.max
        fileprivate var packed: [UInt8] = []
        /// Whether blocks read go into the block cache. A pass over the whole store
        /// (compaction) keeps them here instead, one at a time, so that it neither
        /// grows the process by the cache nor evicts what requests read.
        fileprivate var fillsCache = true
        /// The last raw block read without the cache (blob references do not pack).
        fileprivate var rawBlockOffset = UInt64.max
        fileprivate var raw: [UInt8] = []
        /// The Bloom filter, once a lookup read it (never empty then).
        fileprivate var filter: [UInt8] = []

        init() {}

        /// A fresh memo for each of `count` files: lookups of many keys at once keep
        /// one per file for the batch, so that a file's fence and filter are taken
        /// once (a fence larger than a quarter of the cache is never cached, and a
        /// fresh memo per key would read it whole for each).
        static func perFile(_ count: Int) -> [LookupMemo] {
            [LookupMemo](repeating: LookupMemo(), count: count)
        }

        /// A memo for a pass that leaves the block cache as it is.
        static var passing: LookupMemo {
            var memo = LookupMemo()
            memo.fillsCache = false
            return memo
        }

        /// Lets go of the filter: a pass that keeps its memos over many lookups takes
        /// the filters from the cache again now and then, as over every file of a large
        /// store they would add up outside the cache's budget.
        mutating func dropFilter() {
            filter = []
        }
    }

    /// Entries in ascending key order from the first key ≥ `start`, a block at a time.
    struct Cursor {
        let file: IndexFile
        var blockIndex: Int
        /// The current block's entries, and the block their blob references lie in.
        var slots: [IndexSlot] = []
        var block: [UInt8] = []
        var position = 0
        let fence: [UInt8]
        let fenceCount: Int

        /// The current entry's key, read without copying the entry.
        var currentKey: RecordKey? { position < slots.count ? slots[position].key : nil }
        var currentSlot: IndexSlot? { position < slots.count ? slots[position] : nil }
        var current: IndexEntry? { currentSlot.map { IndexEntry($0, blobs: blobs(of: $0)) } }

        /// The blob references of a slot of the current block.
        func blobs(of slot: IndexSlot) -> [BlobRef] { IndexFile.blobs(in: block, at: slot.blobList) }

        mutating func advance() throws(Damage) {
            position += 1
            try fill()
        }

        /// Hands `body` this cursor's entries below `bound` (all of them when nil), in
        /// order, a block at a time read in place, and stops at the first key at or past
        /// it; false when `body` stopped the walk.
        mutating func run(below bound: RecordKey?, _ body: (IndexSlot, () -> [BlobRef]) throws -> Bool) throws -> Bool {
            while position < slots.count {
                var i = position
                // nil: the block is done; true: the bound is reached; false: `body` stopped.
                let outcome: Bool? = try slots.withUnsafeBufferPointer { slots in
                    while i < slots.count {
                        if let bound, slots[i].key >= bound { return true }
                        if try !body(slots[i], { blobs(of: slots[i]) }) { return false }
                        i += 1
                    }
                    return nil
                }
                position = i
                if let outcome { return outcome }
                try fill()
            }
            return true
        }

        mutating func fill() throws(Damage) {
            while position >= slots.count {
                guard blockIndex < fenceCount else { return }
                (slots, block) = try file.dataBlockSlots(fence, blockIndex)
                blockIndex += 1
                position = 0
            }
        }
    }

    func cursor(from start: RecordKey) throws(Damage) -> Cursor {
        let (fence, count) = try dataFence()
        let i = footer.entryCount == 0 ? count : fencePosition(fence, count: count, atLeast: start.rawValue)
        var cursor = Cursor(file: self, blockIndex: i, fence: fence, fenceCount: count)
        try cursor.fill()
        while let key = cursor.currentKey, key < start { try cursor.advance() }
        return cursor
    }

    /// The greatest key of this file below `upper` (exclusive) and ≥ `lower`, if any.
    func lastKey(from lower: RecordKey, below upper: RecordKey) throws(Damage) -> RecordKey? {
        guard footer.entryCount > 0, upper.rawValue > footer.minKey, lower.rawValue <= footer.maxKey else { return nil }
        let (fence, count) = try dataFence()
        var i = min(fencePosition(fence, count: count, atLeast: upper.rawValue), count - 1)
        while i >= 0 {
            let slots = try dataBlockSlots(fence, i).slots
            if let last = slots.last(where: { $0.key < upper }) { return last.key >= lower ? last.key : nil }
            i -= 1
        }
        return nil
    }

    // MARK: Term blocks

    /// The term fence's entries: each block's last (index, value) and its handle.
    private func termFence() throws(Damage) -> [(index: UInt32, value: [UInt8], offset: UInt64, length: UInt64)] {
        let fence = try block(footer.termFence.offset, footer.termFence.length, what: "term fence")
        do {
            var r = ByteReader(fence, to: fence.count - 4, path: path, baseOffset: Int64(footer.termFence.offset))
            let count = Int(try r.u32("term fence count"))
            guard count <= r.remaining / 26 else { throw r.corrupt("term fence count \(count) exceeds its block") }
            var result: [(index: UInt32, value: [UInt8], offset: UInt64, length: UInt64)] = []
            result.reserveCapacity(count)
            for _ in 0..<count {
                let index = try r.u32("term index")
                let length = Int(try r.u16("term length"))
                let value = try r.bytes(length, "term value")
                _ = try r.u64("last key")
                let offset = try r.u64("block offset"), blockLength = UInt64(try r.u32("block length"))
                // Term blocks lie between the data blocks and the data fence.
                guard offset <= footer.dataFence.offset, blockLength <= footer.dataFence.offset - offset else {
                    throw r.corrupt("term block handle lies outside the term area")
                }
                result.append((index, value, offset, blockLength))
            }
            return result
        } catch let error as StrataError {
            throw Damage(segmentID: segmentID, error: error)
        } catch {
            throw damage("\(error)", at: footer.termFence.offset)
        }
    }

    private func termBlock(offset: UInt64, length: UInt64) throws(Damage) -> [IndexTermEntry] {
        let bytes = try block(offset, length, what: "term")
        do {
            var r = ByteReader(bytes, to: bytes.count - 4, path: path, baseOffset: Int64(offset))
            let count = Int(try r.u32("term count"))
            guard count <= r.remaining / 22 else { throw r.corrupt("term block count \(count) exceeds the block") }
            var terms: [IndexTermEntry] = []
            terms.reserveCapacity(count)
            for _ in 0..<count {
                let index = try r.u32("term index")
                let length = Int(try r.u16("term length"))
                let value = try r.bytes(length, "term value")
                terms.append(IndexTermEntry(index: index, value: TermBytes(value), key: RecordKey(try r.u64("term key")), sequence: try r.u64("term sequence")))
            }
            guard r.isAtEnd else { throw r.corrupt("bytes after the last term of a term block") }
            return terms
        } catch let error as StrataError {
            throw Damage(segmentID: segmentID, error: error)
        } catch {
            throw damage("\(error)", at: offset)
        }
    }

    /// Term entries with `index` whose value lies within the bounds, in file order.
    func terms(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool,
               _ body: (IndexTermEntry) -> Void) throws(Damage) {
        try walkTerms(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive) { value, key, sequence in
            body(IndexTermEntry(index: index, value: TermBytes(value), key: key, sequence: sequence))
        }
    }

    /// The key and sequence of each term ``terms(index:from:through:lowerInclusive:upperInclusive:_:)``
    /// lists: an index read wants only those two, and making a term entry per term made
    /// an array per term's value (10,000 a query of a department of a million employees).
    func termKeys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool,
                  _ body: (RecordKey, UInt64) -> Void) throws(Damage) {
        try walkTerms(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive) { _, key, sequence in
            body(key, sequence)
        }
    }

    /// The terms of `index` within the bounds, in file order, read in place from the
    /// term fence and blocks: each term's value (valid during the call), key and
    /// sequence. The whole fence and each block are checked to parse before any of their
    /// terms is handed over; a fence or block that does not is decoded the checked way
    /// (`termFence`, `termBlock`), which names the damage.
    ///
    /// The fence and blocks are checked once, when read, and cached checked
    /// (`checkedFlag`): checking them again at every walk would check the whole fence
    /// each time, for the one or two blocks a query reads. The walk stops at the first
    /// fence entry past the index.
    private func walkTerms(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool,
                           _ body: (UnsafeRawBufferPointer, RecordKey, UInt64) -> Void) throws(Damage) {
        try walkTerms(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive,
                      descending: false) { value, key, sequence in
            body(value, key, sequence)
            return true
        }
    }

    /// The terms of `index` within the bounds (both inclusive) in term order, or in its
    /// reverse when `descending`, strictly after `after` in that order, until `body`
    /// returns false: the walk a fetch sorted by an indexed attribute takes, which stops
    /// once its top rows are settled. Checked and cached as
    /// ``walkTerms(index:from:through:lowerInclusive:upperInclusive:_:)``.
    ///
    /// The cursor is sought by value and key through the fence's last keys: a page that
    /// continues a run of one value (a department's employees) starts in the block
    /// where the last page stopped, not at the run's first term.
    func orderedTerms(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, descending: Bool, after: TermEntry? = nil,
                      _ body: (UnsafeRawBufferPointer, RecordKey, UInt64) -> Bool) throws(Damage) {
        try walkTerms(index: index, from: lower, through: upper, lowerInclusive: true, upperInclusive: true, descending: descending,
                      after: after, body)
    }

    /// The walk itself. Descending, the blocks are taken last first and each block's
    /// wanted terms are noted (where they lie in it) and handed over last first: the
    /// terms of a block are in ascending order and of varying length.
    private func walkTerms(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool,
                           descending: Bool, after: TermEntry? = nil,
                           _ body: (UnsafeRawBufferPointer, RecordKey, UInt64) -> Bool) throws(Damage) {
        guard footer.termCount > 0 else { return }
        let dataFenceOffset = footer.dataFence.offset
        guard let fence = try checkedTermBytes(footer.termFence.offset, footer.termFence.length, what: "term fence", parses: {
            Self.termFenceParses($0, dataFenceOffset: dataFenceOffset)
        }) else {
            _ = try termFence()
            throw damage("term fence does not parse", at: footer.termFence.offset)
        }
        // Fence entries: index u32, value length u16, value, last key u64, offset u64, length u32.
        var handles: [(offset: UInt64, length: UInt64)] = []
        let afterKey = after?.key
        fence.withUnsafeBytes { b in
            Self.withBounds(lower, upper) { lowerBytes, upperBytes in
                (after?.value ?? []).withUnsafeBytes { afterBytes in
                    let count = Int(UInt32(littleEndian: b.loadUnaligned(as: UInt32.self)))
                    var p = 4
                    for _ in 0..<count {
                        let (blockIndex, value, at) = Self.termEntry(b, at: p)
                        p = at + 20
                        // Blocks whose last term sorts before (index, lower) hold nothing
                        // wanted; the first block past `index` may still begin with its terms.
                        if blockIndex < index || (blockIndex == index && TermBytes.bytewiseOrder(value, lowerBytes) < 0) { continue }
                        // Ascending, nor do blocks whose last term is not past the cursor.
                        let lastKey = RecordKey(UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
                        let afterOrder = afterKey == nil || blockIndex != index ? 1 : TermBytes.bytewiseOrder(value, afterBytes)
                        if !descending, let afterKey, afterOrder < 0 || (afterOrder == 0 && lastKey <= afterKey) { continue }
                        let offset = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))
                        let blockLength = UInt64(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: at + 16, as: UInt32.self)))
                        handles.append((offset, blockLength))
                        if blockIndex > index { return }
                        // A block whose last term sorts past `upper` is the last that can hold
                        // a wanted one (a last term equal to it may continue in the next
                        // block): an equality read lists its value's blocks, not the rest of
                        // its index.
                        if upper != nil, TermBytes.bytewiseOrder(value, upperBytes) > 0 { return }
                        // Descending, the block holding the cursor (its last term not
                        // before it) is the last one with terms before the cursor.
                        if descending, let afterKey, afterOrder > 0 || (afterOrder == 0 && lastKey >= afterKey) { return }
                    }
                }
            }
        }
        var wanted: [Int] = []
        for handle in descending ? handles.reversed() : handles {
            guard let bytes = try checkedTermBytes(handle.offset, handle.length, what: "term", parses: Self.termBlockParses) else {
                _ = try termBlock(offset: handle.offset, length: handle.length)
                throw damage("term block does not parse", at: handle.offset)
            }
            // Terms: index u32, value length u16, value, key u64, sequence u64.
            let done: Bool = bytes.withUnsafeBytes { b in
                Self.withBounds(lower, upper) { lowerBytes, upperBytes in (after?.value ?? []).withUnsafeBytes { afterBytes in
                    let count = Int(UInt32(littleEndian: b.loadUnaligned(as: UInt32.self)))
                    var p = 4
                    wanted.removeAll(keepingCapacity: true)
                    // Ascending, a term past the index or the upper bound ends the walk;
                    // descending, the blocks before this one may still hold wanted terms.
                    var ended = false
                    for _ in 0..<count {
                        let start = p
                        let (termIndex, value, at) = Self.termEntry(b, at: p)
                        p = at + 16
                        if termIndex < index { continue }
                        if termIndex > index {
                            ended = true
                            break
                        }
                        if lower != nil {
                            let order = TermBytes.bytewiseOrder(value, lowerBytes)
                            if order < 0 || (order == 0 && !lowerInclusive) { continue }
                        }
                        if upper != nil {
                            let order = TermBytes.bytewiseOrder(value, upperBytes)
                            if order > 0 || (order == 0 && !upperInclusive) {
                                ended = true
                                break
                            }
                        }
                        let key = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                        if let afterKey {
                            // Terms up to the cursor are passed over; descending, the
                            // first one at or past it ends this block's share.
                            let order = TermBytes.bytewiseOrder(value, afterBytes)
                            if descending {
                                if order > 0 || (order == 0 && key >= afterKey.rawValue) { break }
                            } else if order < 0 || (order == 0 && key <= afterKey.rawValue) {
                                continue
                            }
                        }
                        if descending {
                            wanted.append(start)
                            continue
                        }
                        let sequence = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))
                        if !body(value, RecordKey(key), sequence) { return true }
                    }
                    for start in wanted.reversed() {
                        let (_, value, at) = Self.termEntry(b, at: start)
                        let key = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                        let sequence = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))
                        if !body(value, RecordKey(key), sequence) { return true }
                    }
                    return ended && !descending
                } }
            }
            if done { return }
        }
    }

    /// A walk's bounds as bytes (an absent bound as empty bytes: its test is skipped).
    @inline(__always)
    private static func withBounds<Answer>(_ lower: [UInt8]?, _ upper: [UInt8]?,
                                           _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Answer) -> Answer {
        (lower ?? []).withUnsafeBytes { lowerBytes in (upper ?? []).withUnsafeBytes { upperBytes in body(lowerBytes, upperBytes) } }
    }

    /// The head of the term fence or block entry at `p`, in bytes checked to parse: its
    /// index, its value (index u32, value length u16, value), and where the fixed bytes
    /// after it begin.
    @inline(__always)
    private static func termEntry(_ b: UnsafeRawBufferPointer, at p: Int) -> (index: UInt32, value: UnsafeRawBufferPointer, trailer: Int) {
        let index = UInt32(littleEndian: b.loadUnaligned(fromByteOffset: p, as: UInt32.self))
        let length = Int(UInt16(littleEndian: b.loadUnaligned(fromByteOffset: p + 4, as: UInt16.self)))
        return (index, UnsafeRawBufferPointer(rebasing: b[p + 6..<p + 6 + length]), p + 6 + length)
    }

    /// Marks a term fence or term block in the cache that was checked to parse; a walk
    /// reads it without checking again. Offsets lie far below it (and `packedFlag`).
    static let checkedFlag: UInt64 = 1 << 61

    /// The term fence or block at `offset`, checked by `parses` when read (its CRC, as
    /// every block's, by `block`) and cached checked; nil when it does not parse (the
    /// caller decodes it the checked way, which names the damage).
    private func checkedTermBytes(_ offset: UInt64, _ length: UInt64, what: String,
                                  parses: (UnsafeRawBufferPointer) -> Bool) throws(Damage) -> [UInt8]? {
        let key = BlockCache.Key(file: cacheID, offset: offset | Self.checkedFlag)
        if let cached = cache.get(key) { return cached }
        let bytes = try block(offset, length, what: what, caching: false)
        guard bytes.withUnsafeBytes(parses) else { return nil }
        cache.put(key, bytes)
        return bytes
    }

    /// Whether a term fence's entries parse: their count, lengths and handles (term
    /// blocks lie between the data blocks and the data fence) fit the block.
    static func termFenceParses(_ b: UnsafeRawBufferPointer, dataFenceOffset: UInt64) -> Bool {
        termEntriesParse(b, trailer: 20, fillsBlock: false) { at in
            let offset = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))
            let blockLength = UInt64(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: at + 16, as: UInt32.self)))
            return offset <= dataFenceOffset && blockLength <= dataFenceOffset - offset
        }
    }

    /// Whether a term block's terms parse: their count and lengths fill the block exactly.
    static func termBlockParses(_ b: UnsafeRawBufferPointer) -> Bool {
        termEntriesParse(b, trailer: 16, fillsBlock: true)
    }

    /// Whether the entries of a term fence or block parse: a count (u32), then entries of
    /// index u32, value length u16, the value and `trailer` fixed bytes (a fence entry's
    /// last key, offset and length; a term's key and sequence), each accepted by
    /// `accepts` (given where its trailer starts), all within the block's body before its
    /// checksum — and filling it, when `fillsBlock`.
    private static func termEntriesParse(_ b: UnsafeRawBufferPointer, trailer: Int, fillsBlock: Bool,
                                         accepts: (Int) -> Bool = { _ in true }) -> Bool {
        let end = b.count - 4
        guard end >= 4 else { return false }
        let count = Int(UInt32(littleEndian: b.loadUnaligned(as: UInt32.self)))
        guard count <= (end - 4) / (6 + trailer) else { return false }
        var p = 4
        for _ in 0..<count {
            guard p + 6 <= end else { return false }
            let length = Int(UInt16(littleEndian: b.loadUnaligned(fromByteOffset: p + 4, as: UInt16.self)))
            guard p + 6 + length + trailer <= end, accepts(p + 6 + length) else { return false }
            p += 6 + length + trailer
        }
        return !fillsBlock || p == end
    }

    /// Every entry and term of the file, checking each block (verify, upgrades).
    func readAll() throws(Damage) -> (entries: [IndexEntry], terms: [IndexTermEntry]) {
        var entries: [IndexEntry] = []
        var cursor = try cursor(from: RecordKey(0))
        while let e = cursor.current {
            entries.append(e)
            try cursor.advance()
        }
        var terms: [IndexTermEntry] = []
        if footer.termCount > 0 {
            for handle in try termFence() { terms += try termBlock(offset: handle.offset, length: handle.length) }
        }
        return (entries, terms)
    }

    /// Calls `body` with every entry, a block at a time (blob-file collection, counters).
    func forEachEntry(_ body: (IndexEntry) throws -> Void) throws {
        var cursor = try cursor(from: RecordKey(0))
        while let e = cursor.current {
            try body(e)
            try cursor.advance()
        }
    }

    /// Marks a data block's packed form in the cache (offsets lie far below it).
    static let packedFlag: UInt64 = 1 << 62

    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= b.count else { return 0 }
        return b.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
    }

    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 {
        guard at >= 0, at + 8 <= b.count else { return 0 }
        return b.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
    }
}
