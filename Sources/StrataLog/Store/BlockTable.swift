/// The block cache's map from a block's key to its slot: open addressing with linear
/// probing and backward-shift deletion, one multiply-and-shift hash of the key's two
/// words. `Dictionary` hashes every key with SipHash through `Hasher`, a cost paid
/// three or four times a random lookup (once per cache probe); the cache's keys are
/// the store's own numbers, not an attacker's, so a cheap mix is enough. A bucket's
/// key and slot lie together: with them in three arrays a probe of a table larger
/// than the CPU's caches would miss three times.
struct BlockTable {
    private struct Bucket {
        var file: UInt64
        var offset: UInt64
        /// The slot of the entry; -1 where the bucket is empty.
        var value: Int32
    }

    private var buckets: [Bucket]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        var size = 16
        while size < capacity { size <<= 1 }
        buckets = [Bucket](repeating: Bucket(file: 0, offset: 0, value: -1), count: size)
        mask = size - 1
    }

    var isEmpty: Bool { count == 0 }

    private func home(_ file: UInt64, _ offset: UInt64) -> Int {
        var h = (offset ^ (file &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        return Int(truncatingIfNeeded: h) & mask
    }

    subscript(_ key: BlockCache.Key) -> Int? {
        buckets.withUnsafeBufferPointer { b in
            var i = home(key.file, key.offset)
            while b[i].value >= 0 {
                if b[i].file == key.file && b[i].offset == key.offset { return Int(b[i].value) }
                i = (i + 1) & mask
            }
            return nil
        }
    }

    mutating func set(_ key: BlockCache.Key, _ value: Int) {
        if (count + 1) * 4 > buckets.count * 3 { grow() }
        var i = home(key.file, key.offset)
        while buckets[i].value >= 0 {
            if buckets[i].file == key.file && buckets[i].offset == key.offset {
                buckets[i].value = Int32(value)
                return
            }
            i = (i + 1) & mask
        }
        buckets[i] = Bucket(file: key.file, offset: key.offset, value: Int32(value))
        count += 1
    }

    mutating func remove(_ key: BlockCache.Key) {
        var i = home(key.file, key.offset)
        while buckets[i].value >= 0 {
            if buckets[i].file == key.file && buckets[i].offset == key.offset { break }
            i = (i + 1) & mask
        }
        guard buckets[i].value >= 0 else { return }
        buckets[i].value = -1
        count -= 1
        // Backward shift: move later entries of the run into the hole when their home
        // does not lie cyclically between the hole and them.
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            guard buckets[j].value >= 0 else { return }
            let k = home(buckets[j].file, buckets[j].offset)
            let between = hole <= j ? (hole < k && k <= j) : (hole < k || k <= j)
            if between { continue }
            buckets[hole] = buckets[j]
            buckets[j].value = -1
            hole = j
        }
    }

    private mutating func grow() {
        let old = buckets
        self = BlockTable(capacity: buckets.count * 2)
        for bucket in old where bucket.value >= 0 {
            set(BlockCache.Key(file: bucket.file, offset: bucket.offset), Int(bucket.value))
        }
    }
}
