/// An index term's value as the in-memory index keeps it: up to 16 bytes inline, with
/// no heap allocation, longer values in an array. References (8 bytes, big-endian)
/// and most indexed numbers fit inline, and they are most of the terms of a large
/// store: a `[UInt8]` per term cost an allocation of about 40 bytes for each object.
///
/// Values of 16 bytes or fewer are always inline, so synthesized equality and
/// hashing compare contents. Order is bytewise, as `IndexTerm` values compare.
enum TermBytes: Hashable, Comparable, Sendable {
    /// The bytes packed big-endian into two words, zero-padded, and their count.
    case inline(UInt64, UInt64, UInt8)
    case heap([UInt8])

    static let inlineCapacity = 16

    init<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        guard bytes.count <= Self.inlineCapacity else {
            self = .heap(Array(bytes))
            return
        }
        var head: UInt64 = 0, tail: UInt64 = 0
        for (i, byte) in bytes.enumerated() {
            if i < 8 { head |= UInt64(byte) << (56 - 8 * UInt64(i)) } else { tail |= UInt64(byte) << (56 - 8 * UInt64(i - 8)) }
        }
        self = .inline(head, tail, UInt8(bytes.count))
    }

    /// The same value from bytes in place, read a word at a time: an index file's
    /// walk makes one per term it lists, and a loop per byte would dominate that.
    init(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard count <= Self.inlineCapacity else {
            self = .heap(Array(bytes))
            return
        }
        // Byte i of the value is at bit 56 - 8i of its word: big-endian loads.
        func word(from start: Int) -> UInt64 {
            let n = min(8, count - start)
            guard n > 0 else { return 0 }
            if n == 8 { return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)) }
            var w: UInt64 = 0
            for i in 0..<n { w |= UInt64(bytes[start + i]) << (56 - 8 * UInt64(i)) }
            return w
        }
        self = .inline(word(from: 0), word(from: 8), UInt8(count))
    }

    /// How many bytes the value holds.
    var count: Int {
        switch self {
        case .heap(let bytes): return bytes.count
        case .inline(_, _, let count): return Int(count)
        }
    }

    /// Appends the value's bytes, without the array `bytes` makes of an inline value
    /// (a chunked commit writes every term three times: spilled, read back, encoded).
    func append(to w: inout ByteWriter) {
        switch self {
        case .heap(let bytes):
            w.bytes(bytes)
        case .inline(let head, let tail, let count):
            guard count > 0 else { return }
            w.fixed(Int(count)) { b in
                for i in 0..<Int(count) {
                    b[i] = i < 8 ? UInt8(truncatingIfNeeded: head >> (56 - 8 * UInt64(i))) : UInt8(truncatingIfNeeded: tail >> (56 - 8 * UInt64(i - 8)))
                }
            }
        }
    }

    /// Calls `body` with the value's bytes in place, without an array for an inline one.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch self {
        case .heap(let bytes):
            return try bytes.withUnsafeBytes(body)
        case .inline(let head, let tail, let count):
            let words = (head.bigEndian, tail.bigEndian)
            return try withUnsafeBytes(of: words) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(Int(count)))) }
        }
    }

    var bytes: [UInt8] {
        switch self {
        case .heap(let bytes): return bytes
        case .inline(let head, let tail, let count):
            // The two words' big-endian bytes are the value, zero-padded: copied out
            // whole and cut to its count (a walk in index order hands out a value per
            // term, and a closure mapped over the count is a call per byte).
            let words = (head.bigEndian, tail.bigEndian)
            return withUnsafeBytes(of: words) { Array($0.prefix(Int(count))) }
        }
    }

    static func < (a: TermBytes, b: TermBytes) -> Bool { order(a, b) < 0 }

    /// Bytewise order as −1, 0 or 1: one comparison where `!=` then `<` made two (a
    /// sort of terms asks it at every step).
    @inline(__always)
    static func order(_ a: TermBytes, _ b: TermBytes) -> Int {
        if case .inline(let ah, let at, let ac) = a, case .inline(let bh, let bt, let bc) = b {
            // Zero padding makes a proper prefix compare equal on the words; the
            // shorter one then comes first, as in a bytewise comparison.
            if ah != bh { return ah < bh ? -1 : 1 }
            if at != bt { return at < bt ? -1 : 1 }
            return ac == bc ? 0 : (ac < bc ? -1 : 1)
        }
        return bytewiseOrder(a.bytes, b.bytes)
    }

    /// Bytewise order of two arrays as −1, 0 or 1, over their storage: the generic
    /// `lexicographicallyPrecedes` walks an iterator per byte, and sorting an index of
    /// long values (an ordered to-many's edge terms are 24 bytes) spent most of its
    /// time there.
    private static func bytewiseOrder(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in bytewiseOrder(x, y) } }
    }

    /// Bytewise order as −1, 0 or 1 (a proper prefix first), eight bytes at a time as
    /// big-endian words, whose order is their bytes' order: terms sorted here and the
    /// bounds an index read compares every term of a block with (`IndexFile.walkTerms`),
    /// most of them eight-byte integers, where a checked loop per byte would dominate
    /// the term walk.
    static func bytewiseOrder(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        var i = 0
        while i + 8 <= common {
            let x = UInt64(bigEndian: a.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let y = UInt64(bigEndian: b.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if x != y { return x < y ? -1 : 1 }
            i += 8
        }
        while i < common {
            if a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
            i += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}

/// The keys that carry one term value. Most values belong to one key (a to-one
/// reference to an object nothing else references, a unique attribute): those need
/// no set of their own.
enum TermKeys: Sendable {
    case one(RecordKey)
    case many(Set<RecordKey>)

    var count: Int {
        switch self {
        case .one: return 1
        case .many(let keys): return keys.count
        }
    }

    func contains(_ key: RecordKey) -> Bool {
        switch self {
        case .one(let existing): return existing == key
        case .many(let keys): return keys.contains(key)
        }
    }

    func appending(to result: inout [RecordKey]) {
        switch self {
        case .one(let key): result.append(key)
        case .many(let keys): result.append(contentsOf: keys)
        }
    }

    /// Adds a key in place. The set is taken out of `self` before it changes, so it
    /// stays uniquely referenced and grows without a copy: copying it on every insert
    /// made loading a store quadratic in the objects that share a value.
    mutating func insert(_ key: RecordKey) {
        switch self {
        case .one(let existing):
            if existing != key { self = .many([existing, key]) }
        case .many(var keys):
            self = .one(key)
            keys.insert(key)
            self = .many(keys)
        }
    }

    /// Removes a key in place; returns false when none is left, so the caller drops
    /// the value.
    mutating func remove(_ key: RecordKey) -> Bool {
        switch self {
        case .one(let existing):
            return existing != key
        case .many(var keys):
            self = .one(key)
            keys.remove(key)
            if keys.count == 1, let last = keys.first {
                self = .one(last)
            } else {
                self = .many(keys)
            }
            return !keys.isEmpty
        }
    }
}
