/// Index terms packed into one byte buffer, each in the bytes a term block holds it
/// in (FORMAT.md §7.3: index u32, value length u16, value, key u64, sequence u64,
/// little-endian), with a fixed-size slot per term that the sort moves instead of the
/// term. No term is an object of its own: a sort of `IndexTermEntry` values kept each
/// value longer than 16 bytes as an array, and allocating, comparing through and
/// freeing those arrays was most of building a unique index over an email address.
///
/// The sort is by key prefix, a word at a time: slots are ordered by (index, the
/// value's first eight bytes as a big-endian word, how many bytes are left); each
/// group that ties on a word with bytes still to come is ordered again by its next
/// eight bytes, and so on — a most-significant-digit radix sort whose digits are
/// words, each level a sort of small integer slots rather than a byte comparison in
/// the buffer. Terms whose values are equal are ordered by key, then sequence.
package struct PackedTerms {
    /// One term's place in the buffer and the integers its order is decided by.
    struct Slot {
        /// The value's bytes at the current level (8 × level …), big-endian, zero-padded.
        var word: UInt64
        var key: UInt64
        var offset: UInt32
        var index: UInt32
        var length: UInt32
    }

    /// Bytes of one term beside its value: index, length, key, sequence.
    package static let itemOverhead = 22
    /// What a term costs in memory beside its item's bytes: its slot.
    package static let slotBytes = MemoryLayout<Slot>.stride

    private var storage = PackedBytes()
    private var slots: [Slot] = []
    private var sorted = true
    /// Whether a sort left some slots' words at a deeper level than the first: a later
    /// sort starts by taking every first word again.
    private var refined = false

    package init() {}

    package var count: Int { slots.count }
    package var isEmpty: Bool { slots.isEmpty }
    /// Memory the terms hold: their bytes and their slots.
    package var byteCount: Int { storage.count + slots.count * Self.slotBytes }

    /// Adds a term. The buffer holds at most 4 GiB (offsets are 32-bit); a caller
    /// spills long before (`PackedTermSorter`).
    package mutating func append(index: UInt32, value: UnsafeRawBufferPointer, key: RecordKey, sequence: UInt64) {
        precondition(value.count <= Int(UInt16.max), "an index term's value is at most 65,535 bytes")
        let offset = storage.count
        precondition(offset + Self.itemOverhead + value.count <= Int(UInt32.max), "packed terms beyond 4 GiB")
        storage.append(Self.itemOverhead + value.count) { b in
            b.storeBytes(of: index.littleEndian, toByteOffset: 0, as: UInt32.self)
            b.storeBytes(of: UInt16(value.count).littleEndian, toByteOffset: 4, as: UInt16.self)
            if let base = value.baseAddress, value.count > 0 { (b.baseAddress! + 6).copyMemory(from: base, byteCount: value.count) }
            b.storeBytes(of: key.rawValue.littleEndian, toByteOffset: 6 + value.count, as: UInt64.self)
            b.storeBytes(of: sequence.littleEndian, toByteOffset: 14 + value.count, as: UInt64.self)
        }
        addSlot(offset: offset, index: index, length: value.count, key: key.rawValue)
    }

    package mutating func append(index: UInt32, value: [UInt8], key: RecordKey, sequence: UInt64) {
        value.withUnsafeBytes { append(index: index, value: $0, key: key, sequence: sequence) }
    }

    /// Adds a term given as its item bytes (`PackedTerm.encoded`).
    package mutating func append(encoded item: UnsafeRawBufferPointer) {
        let offset = storage.count
        storage.append(item.count) { $0.copyMemory(from: item) }
        let term = PackedTerm(item)
        addSlot(offset: offset, index: term.index, length: term.valueLength, key: term.key.rawValue)
    }

    private mutating func addSlot(offset: Int, index: UInt32, length: Int, key: UInt64) {
        var slot = Slot(word: 0, key: key, offset: UInt32(offset), index: index, length: UInt32(length))
        slot.word = storage.word(of: slot, level: 0)
        if sorted, refined || slots.last.map({ Self.less(slot, $0, level: 0, storage) }) ?? false { sorted = false }
        slots.append(slot)
    }

    /// Forgets the terms; `keepingCapacity` keeps their memory for the next run (a
    /// sorter that spilled fills the same buffer again rather than growing a new one).
    package mutating func removeAll(keepingCapacity: Bool = false) {
        storage.removeAll(keepingCapacity: keepingCapacity)
        slots.removeAll(keepingCapacity: keepingCapacity)
        sorted = true
        refined = false
    }

    /// Puts the terms in index file order: index, value bytewise (a proper prefix
    /// first), key, sequence. `pause` is called every few thousand slots handled: a
    /// background caller gives up its core there (the sort of a large segment's terms
    /// is a stretch of milliseconds).
    package mutating func sort(pause: (() -> Void)? = nil) {
        // Terms that came in order stay as they are (a sorted load, one index).
        if sorted && !hasTies() { return }
        let storage = self.storage
        if refined { for i in slots.indices { slots[i].word = storage.word(of: slots[i], level: 0) } }
        var deeper = false
        // Slots handled since the last pause, counted across groups: a sort of many
        // small tied groups is as long a stretch as one of a large group.
        var handled = 0
        slots.withUnsafeMutableBufferPointer { slots in
            var work: [(range: Range<Int>, level: Int)] = [(0..<slots.count, 0)]
            while let (range, level) = work.popLast() {
                let group = UnsafeMutableBufferPointer(rebasing: slots[range])
                if level > 0 { for i in group.indices { group[i].word = storage.word(of: group[i], level: level) } }
                Self.quicksort(group, level: level, storage, pause: pause, handled: &handled)
                if let pause { Self.count(group.count, into: &handled, pause: pause) }
                // Runs tied on (index, word) with bytes still to come: ordered by their next word.
                var start = 0
                while start < group.count {
                    var end = start + 1
                    while end < group.count, group[end].index == group[start].index, group[end].word == group[start].word,
                          Self.tag(group[end].length, level) == 9, Self.tag(group[start].length, level) == 9 {
                        end += 1
                    }
                    if end - start > 1 {
                        work.append((range.lowerBound + start..<range.lowerBound + end, level + 1))
                        deeper = true
                    }
                    start = end
                }
            }
        }
        sorted = true
        refined = deeper
    }

    /// How many slots a sort handles (partitions, or scans for ties) between two calls
    /// of its `pause`, which decides by the clock whether to give the core up.
    static let slotsBetweenPauses = 4_096

    /// Adds `slots` to `handled` and calls `pause` once they reach ``slotsBetweenPauses``.
    private static func count(_ slots: Int, into handled: inout Int, pause: () -> Void) {
        handled += slots
        guard handled >= slotsBetweenPauses else { return }
        pause()
        handled = 0
    }

    /// Sorts slots in place by `less` at `level`: a quicksort (median of three,
    /// insertion sort below 16) on the slots themselves. The order is total (equal
    /// values are ordered by key and sequence), so stability is not needed, and the
    /// standard library's merge sort moved every slot through a buffer at each pass.
    static func quicksort(_ a: UnsafeMutableBufferPointer<Slot>, level: Int, _ storage: PackedBytes, pause: (() -> Void)? = nil, handled: inout Int) {
        var stack: [(Int, Int)] = [(0, a.count - 1)]
        while let (lowest, highest) = stack.popLast() {
            var low = lowest, high = highest
            while high - low >= 16 {
                if let pause { count(high - low, into: &handled, pause: pause) }
                let mid = low + (high - low) / 2
                if less(a[mid], a[low], level: level, storage) { a.swapAt(mid, low) }
                if less(a[high], a[low], level: level, storage) { a.swapAt(high, low) }
                if less(a[high], a[mid], level: level, storage) { a.swapAt(high, mid) }
                let pivot = a[mid]
                var i = low, j = high
                while i <= j {
                    while less(a[i], pivot, level: level, storage) { i += 1 }
                    while less(pivot, a[j], level: level, storage) { j -= 1 }
                    if i <= j {
                        a.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                // The smaller side next, the larger one later: the stack stays logarithmic.
                if j - low < high - i {
                    if i < high { stack.append((i, high)) }
                    high = j
                } else {
                    if low < j { stack.append((low, j)) }
                    low = i
                }
            }
            // A while loop, not a closed range, whose iteration goes through its index's
            // value witnesses.
            var k = low + 1
            while k <= high {
                let item = a[k]
                var m = k - 1
                while m >= low, less(item, a[m], level: level, storage) {
                    a[m + 1] = a[m]
                    m -= 1
                }
                a[m + 1] = item
                k += 1
            }
        }
    }

    /// Whether two neighbours tie on their first word with bytes still to come: an
    /// order by first words then says nothing of theirs.
    private func hasTies() -> Bool {
        for i in slots.indices.dropFirst() where slots[i].index == slots[i - 1].index && slots[i].word == slots[i - 1].word
            && Self.tag(slots[i].length, 0) == 9 && Self.tag(slots[i - 1].length, 0) == 9 {
            return true
        }
        return false
    }

    /// How many of the value's bytes lie at or past `level`'s word: 0…8, or 9 for more than eight.
    @inline(__always)
    static func tag(_ length: UInt32, _ level: Int) -> UInt32 {
        let left = Int(length) - 8 * level
        return left <= 0 ? 0 : (left > 8 ? 9 : UInt32(left))
    }

    /// The order at one level: index, word, bytes left; equal values by key, sequence.
    @inline(__always)
    static func less(_ a: Slot, _ b: Slot, level: Int, _ storage: PackedBytes) -> Bool {
        if a.index != b.index { return a.index < b.index }
        if a.word != b.word { return a.word < b.word }
        let ta = tag(a.length, level), tb = tag(b.length, level)
        if ta != tb { return ta < tb }
        // Bytes still to come: the next level orders the tie.
        if ta == 9 { return false }
        if a.key != b.key { return a.key < b.key }
        return storage.sequence(of: a) < storage.sequence(of: b)
    }

    /// Calls `body` with each term in slot order (sorted once `sort` ran); a term's
    /// bytes are valid during the call only.
    package func forEach(_ body: (PackedTerm) throws -> Void) rethrows {
        try storage.withBytes { base in
            for slot in slots {
                let size = Self.itemOverhead + Int(slot.length)
                try body(PackedTerm(UnsafeRawBufferPointer(start: base + Int(slot.offset), count: size)))
            }
        }
    }

    /// Calls `body` with a function that gives the term at a position in slot order;
    /// the terms it gives are valid while `body` runs.
    func withTermsInOrder<R>(_ body: ((Int) -> PackedTerm) throws -> R) rethrows -> R {
        try storage.withBytes { base in
            try slots.withUnsafeBufferPointer { slots in
                try body { position in
                    let slot = slots[position]
                    return PackedTerm(UnsafeRawBufferPointer(start: base + Int(slot.offset), count: Self.itemOverhead + Int(slot.length)))
                }
            }
        }
    }
}

/// One packed term: its item bytes and the fields read from them.
package struct PackedTerm {
    /// The term as a term block holds it: index, length, value, key, sequence.
    package let encoded: UnsafeRawBufferPointer

    init(_ encoded: UnsafeRawBufferPointer) { self.encoded = encoded }

    package var index: UInt32 { UInt32(littleEndian: encoded.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) }
    var valueLength: Int { Int(UInt16(littleEndian: encoded.loadUnaligned(fromByteOffset: 4, as: UInt16.self))) }
    package var value: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: encoded[6..<6 + valueLength]) }
    package var key: RecordKey { RecordKey(UInt64(littleEndian: encoded.loadUnaligned(fromByteOffset: 6 + valueLength, as: UInt64.self))) }
    package var sequence: UInt64 { UInt64(littleEndian: encoded.loadUnaligned(fromByteOffset: 14 + valueLength, as: UInt64.self)) }
    /// The term block's fence key for this term: its bytes up to the key (§7.3, §7.4).
    var fenceKey: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: encoded[0..<encoded.count - 8]) }

    /// The file's order as −1, 0 or 1: index, value bytewise, key, sequence.
    package static func order(_ a: PackedTerm, _ b: PackedTerm) -> Int {
        let ai = a.index, bi = b.index
        if ai != bi { return ai < bi ? -1 : 1 }
        let values = TermBytes.bytewiseOrder(a.value, b.value)
        if values != 0 { return values }
        let ak = a.key, bk = b.key
        if ak != bk { return ak < bk ? -1 : 1 }
        let asq = a.sequence, bsq = b.sequence
        return asq == bsq ? 0 : (asq < bsq ? -1 : 1)
    }
}

/// A growable byte buffer of one allocation, read in place by the sort (an array's
/// `withUnsafeBytes` at every comparison cost more than the comparison).
final class PackedBytes: @unchecked Sendable {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0
    private(set) var count = 0

    deinit { base?.deallocate() }

    /// Appends `size` bytes that `fill` writes.
    func append(_ size: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) {
        if count + size > capacity {
            let grown = max(count + size, capacity * 2, 1 << 16)
            let new = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
            if let base {
                new.copyMemory(from: base, byteCount: count)
                base.deallocate()
            }
            base = new
            capacity = grown
        }
        fill(UnsafeMutableRawBufferPointer(start: base! + count, count: size))
        count += size
    }

    /// Forgets the bytes, and gives their memory back unless `keepingCapacity`.
    func removeAll(keepingCapacity: Bool) {
        count = 0
        guard !keepingCapacity else { return }
        base?.deallocate()
        base = nil
        capacity = 0
    }

    func withBytes<R>(_ body: (UnsafeRawPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawPointer(base ?? UnsafeMutableRawPointer(bitPattern: 8)!))
    }

    /// The slot's value bytes `8 × level ..< 8 × level + 8` as a big-endian word, zero-padded.
    @inline(__always)
    func word(of slot: PackedTerms.Slot, level: Int) -> UInt64 {
        let start = 8 * level, length = Int(slot.length)
        guard start < length, let base else { return 0 }
        let at = base + Int(slot.offset) + 6 + start
        let n = length - start
        if n >= 8 { return UInt64(bigEndian: at.loadUnaligned(as: UInt64.self)) }
        var w: UInt64 = 0
        for i in 0..<n { w |= UInt64(at.load(fromByteOffset: i, as: UInt8.self)) << (56 - 8 * UInt64(i)) }
        return w
    }

    @inline(__always)
    func sequence(of slot: PackedTerms.Slot) -> UInt64 {
        UInt64(littleEndian: (base! + Int(slot.offset) + 14 + Int(slot.length)).loadUnaligned(as: UInt64.self))
    }
}
