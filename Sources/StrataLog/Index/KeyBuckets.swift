/// The arithmetic shared by the open-addressing tables keyed by record key — the
/// overlay's `KeyTable`, a context's registry and its changed objects: linear probing
/// from a home bucket found by one multiply and shift, and deletion by shifting a run
/// back into the gap (no tombstones). The keys are the store's own serials, not an
/// attacker's, so a cheap mix is enough: `Dictionary` hashed every key with SipHash.
package enum KeyBuckets {
    /// The bucket where probing for `key` starts, in a table of `mask + 1` buckets.
    @inlinable @inline(__always)
    package static func home(_ key: UInt64, mask: Int) -> Int {
        var h = key &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 29
        return Int(truncatingIfNeeded: h) & mask
    }

    /// Whether the member at bucket `j`, whose home bucket is `home`, must stay where
    /// it is while a removal shifts its run back into the empty bucket `gap`: it stays
    /// when its home lies cyclically in (gap, j], or probing would no longer reach it.
    @inlinable @inline(__always)
    package static func stays(home: Int, gap: Int, at j: Int) -> Bool {
        gap <= j ? (gap < home && home <= j) : (gap < home || home <= j)
    }
}
