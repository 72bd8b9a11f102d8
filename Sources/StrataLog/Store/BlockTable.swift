/// The block cache's map from a block's key to its slot: open addressing with linear
/// probing and backward-shift deletion, one multiply-and-shift hash of the key's two
/// words. `Dictionary` hashes every key with SipHash through `Hasher`, which was a
/// tenth of a random lookup (three or four cache probes each); the cache's keys are
/// the store's own numbers, not an attacker's, so a cheap mix is enough.
struct BlockTable {
    private var files: [UInt64]
    private var offsets: [UInt64]
    /// The slot of each entry; -1 where the bucket is empty.
    private var values: [Int32]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        var size = 16
        while size < capacity { size <<= 1 }
        files = [UInt64](repeating: 0, count: size)
        offsets = [UInt64](repeating: 0, count: size)
        values = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    var isEmpty: Bool { count == 0 }

    private func home(_ file: UInt64, _ offset: UInt64) -> Int {
        var h = (offset ^ (file &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        return Int(truncatingIfNeeded: h) & mask
    }

    subscript(_ key: BlockCache.Key) -> Int? {
        var i = home(key.file, key.offset)
        while values[i] >= 0 {
            if files[i] == key.file && offsets[i] == key.offset { return Int(values[i]) }
            i = (i + 1) & mask
        }
        return nil
    }

    mutating func set(_ key: BlockCache.Key, _ value: Int) {
        if (count + 1) * 4 > values.count * 3 { grow() }
        var i = home(key.file, key.offset)
        while values[i] >= 0 {
            if files[i] == key.file && offsets[i] == key.offset {
                values[i] = Int32(value)
                return
            }
            i = (i + 1) & mask
        }
        files[i] = key.file
        offsets[i] = key.offset
        values[i] = Int32(value)
        count += 1
    }

    mutating func remove(_ key: BlockCache.Key) {
        var i = home(key.file, key.offset)
        while values[i] >= 0 {
            if files[i] == key.file && offsets[i] == key.offset { break }
            i = (i + 1) & mask
        }
        guard values[i] >= 0 else { return }
        values[i] = -1
        count -= 1
        // Backward shift: move later entries of the run into the hole when their home
        // does not lie cyclically between the hole and them.
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            guard values[j] >= 0 else { return }
            let k = home(files[j], offsets[j])
            let between = hole <= j ? (hole < k && k <= j) : (hole < k || k <= j)
            if between { continue }
            files[hole] = files[j]
            offsets[hole] = offsets[j]
            values[hole] = values[j]
            values[j] = -1
            hole = j
        }
    }

    private mutating func grow() {
        let old = (files, offsets, values)
        self = BlockTable(capacity: values.count * 2)
        for i in old.2.indices where old.2[i] >= 0 {
            set(BlockCache.Key(file: old.0[i], offset: old.1[i]), Int(old.2[i]))
        }
    }
}
