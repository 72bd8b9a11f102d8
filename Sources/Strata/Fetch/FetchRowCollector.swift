import Foundation
import StrataLog

/// One match of a fetch on its way to the result: its key, its place among the
/// candidates (ties keep it, which makes sorting stable), its sort values and, when
/// the fetch hands out objects, its object or its record (copied out of its block).
struct FetchRow {
    var key: RecordKey
    var position: Int
    var values: [Value]
    var object: ManagedObject?
    var record: Record?
}

/// Collects a fetch's matches: in candidate order without sort keys; with sort keys
/// and a limit, the best `capacity` rows in a bounded max-heap (top-k: the worst kept
/// row on top, so a candidate that cannot enter costs one comparison); with sort keys
/// and no limit, every row, sorted at the end.
///
/// The rows stay where they were added; the heap and the final order are of their
/// positions in `rows`. A row (its values, object and record) copied on every swap of
/// a sift or step of a sort would be retained and released each time, for every
/// candidate of an indexed query, whose candidates all match.
///
/// A class, owned by the one fetch running on the context's thread (its fields are not
/// checked for exclusivity at run time): as a struct kept in the fetch's shared state,
/// each question asked of it copied it, retaining and releasing its arrays.
final class FetchRowCollector {
    /// How one sort key orders its values: what `SortKey.compare` reads of it, kept
    /// apart from the key path. Comparing through the `SortKey`s would copy each key
    /// (its key path retained and released) per key per comparison, and an indexed
    /// query's matches mostly enter the top-k.
    struct Order {
        var ascending: Bool
        var options: StringComparisonOptions
    }

    /// The first two sort keys' orders, held inline, and the orders of any keys past
    /// them. Reading an array of orders in each comparison retained and released it
    /// (the collector lives in a class the judging closures share): nine times per
    /// row a top-k kept.
    private let first: Order, second: Order
    private let rest: [Order]
    /// How many sort keys there are.
    let keyCount: Int
    /// Top-k's k; nil keeps every row.
    let capacity: Int?
    @exclusivity(unchecked) private var rows: [FetchRow] = []
    /// With a capacity: positions in `rows`, a max-heap by result order.
    @exclusivity(unchecked) private var heap: [Int] = []
    /// Set by `completesLater`: how a row kept with its first sort value only gets the
    /// others (decoded from the record it keeps).
    private var complete: ((inout FetchRow) throws -> Void)?
    /// With a capacity: each kept row's lead (its first sort value, and its second
    /// when `leadCount` is 2) as a tie key, parallel to `rows`. Integers there decide
    /// most comparisons of a top-k (`leadDecides`) without reading the rows' value
    /// arrays, which a comparison retained and released (two atomic operations each,
    /// several comparisons per row kept). Asking whether a lead ties with a kept row
    /// compared it with every row's through `SortKey.compare`, which cost what
    /// decoding a name saves.
    @exclusivity(unchecked) private var tieKeys: [TieKey] = []
    /// How many leading sort values a tie key holds and a partial row keeps: 1, or 2
    /// when `completesLater(leading: 2)` said the first two are read early. Sorted by
    /// department, then salary, then name, a walk of the department index meets whole
    /// departments of rows that tie on the first key; the second then decides.
    private(set) var leadCount = 1

    /// A lead as what decides a tie: for each of its (one or two) values an integer's
    /// bits, null, or neither (such a lead is never kept partial, and ties are then
    /// found by comparing). A lead of one value has a null second half.
    ///
    /// The two integers first, then the two kinds: 24 bytes a key, where the fields in
    /// pairs took 32, and the scans of every kept key (`admitsPartial`) read them all.
    private struct TieKey: Equatable {
        var bits: Int64
        var secondBits: Int64 = 0
        var kind: UInt8
        var secondKind: UInt8 = 0

        static let other = TieKey(bits: 0, kind: 2)

        init(bits: Int64, kind: UInt8) {
            self.bits = bits
            self.kind = kind
        }

        init(_ value: Value) {
            switch value {
            case .int(let v): self.init(bits: v, kind: 1)
            case .null: self.init(bits: 0, kind: 0)
            default: self = .other
            }
        }

        /// A lead of two values; a missing second (nil) is neither integer nor null.
        init(_ first: Value, _ second: Value?) {
            self.init(first)
            let half = second.map(TieKey.init) ?? .other
            secondBits = half.bits
            secondKind = half.kind
        }

        /// Whether either value is neither an integer nor null.
        var isOther: Bool { kind == 2 || secondKind == 2 }
    }

    /// The tie key of a row's values (its lead: the first `leadCount` of them).
    private func tieKey(of values: [Value]) -> TieKey {
        guard let first = values.first else { return .other }
        return tieKey(first: first, second: values.count > 1 ? values[1] : nil)
    }

    private func tieKey(first: Value, second: Value?) -> TieKey {
        leadCount == 2 ? TieKey(first, second) : TieKey(first)
    }
    /// The largest top-k that keeps partial rows: each row kept that way is checked
    /// against every kept row's first value.
    static let partialRowLimit = 64
    /// Whether this collector's rows could be kept partial (`completesLater`): a top-k
    /// of at most `partialRowLimit` rows, sorted by two keys or more.
    var mayKeepPartialRows: Bool { (capacity ?? .max) <= Self.partialRowLimit && keyCount >= 2 }

    init(sortKeys: [SortKey], capacity: Int?) {
        let orders = sortKeys.map { Order(ascending: $0.ascending, options: $0.options) }
        let none = Order(ascending: true, options: [])
        self.first = orders.first ?? none
        self.second = orders.count > 1 ? orders[1] : none
        self.rest = Array(orders.dropFirst(2))
        self.keyCount = orders.count
        self.capacity = sortKeys.isEmpty ? nil : capacity
        // A top-k's rows, heap and tie keys in one allocation each, not grown by doubling.
        if let k = self.capacity, k <= 4_096 {
            rows.reserveCapacity(k)
            heap.reserveCapacity(k)
            tieKeys.reserveCapacity(k)
        }
    }

    var count: Int { rows.count }

    /// Drops every row kept (a walk in index order that could not settle its answer
    /// hands the fetch to a scan, which starts over).
    func removeAll() {
        rows.removeAll(keepingCapacity: true)
        heap.removeAll(keepingCapacity: true)
        tieKeys.removeAll(keepingCapacity: true)
    }

    /// Lets rows in (`admitsPartial`) with their lead only (their first sort value, or
    /// their first two with `leading` 2); their other sort values are decoded (by
    /// `complete`, from the record the row keeps) only when another row's lead ties
    /// with theirs. A top-k sorted by salary, then name, then decodes a name for the
    /// few rows that tie on salary instead of for every row that enters: a name is a
    /// string made, and most rows that enter leave again.
    ///
    /// Kept rows whose leads tie always have all their values: `precedes` only reaches
    /// a value past the lead of rows whose leads tie. Only for a top-k of at most
    /// `partialRowLimit` rows with two sort keys or more; false otherwise. `leading` 2
    /// is for fetches whose first two sort values are read with the predicate (two
    /// integers); with two sort keys, such a row's lead is all its values.
    @discardableResult
    func completesLater(leading: Int = 1, _ complete: @escaping (inout FetchRow) throws -> Void) -> Bool {
        guard mayKeepPartialRows, rows.isEmpty, leading == 1 || leading == 2 else { return false }
        self.complete = complete
        leadCount = leading
        return true
    }

    /// Whether a row whose lead is `first` (and `second`, read only when `leadCount`
    /// is 2) may enter with its lead only: no kept row's lead ties with it (rows are
    /// partial only while they do not).
    func admitsPartial(first: Value, second: Value? = nil) -> Bool {
        guard complete != nil else { return false }
        let key = tieKey(first: first, second: second)
        guard !key.isOther else { return false }
        return tieKeys.withUnsafeBufferPointer { kept in
            // A lead of one value has a constant second half: not compared.
            if leadCount == 1 {
                for other in kept where other.bits == key.bits && other.kind == key.kind { return false }
            } else {
                for other in kept where other.bits == key.bits && other.secondBits == key.secondBits && other == key { return false }
            }
            return true
        }
    }

    /// Gives every kept row whose lead ties with `values`' all its sort values, before
    /// a row with that lead is compared or kept.
    private func completeTies(with values: [Value]) throws {
        guard let complete else { return }
        let key = tieKey(of: values)
        for i in rows.indices where rows[i].values.count < keyCount {
            // A partial row's key is of integers and nulls: it ties with an equal key,
            // and (should an attribute hold other values) with what compares the same.
            guard key.isOther ? leadCompare(rows[i].values, values) == .orderedSame : tieKeys[i] == key else { continue }
            try complete(&rows[i])
        }
    }

    /// How the leads of two rows' values compare, by the sort keys' orders.
    private func leadCompare(_ a: [Value], _ b: [Value]) -> ComparisonResult {
        for index in 0..<min(leadCount, a.count, b.count) {
            let result = Self.compare(a[index], b[index], index == 0 ? first : second)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// `SortKey.compare` for a key ordered by `order`.
    @inline(__always)
    static func compare(_ a: Value, _ b: Value, _ order: Order) -> ComparisonResult {
        SortKey.compare(a, b, ascending: order.ascending, options: order.options)
    }

    /// Whether `a` comes before `b`: by the sort keys, then by position.
    func precedes(_ a: [Value], _ aPosition: Int, _ b: [Value], _ bPosition: Int) -> Bool {
        for index in 0..<keyCount {
            // A partial row's first value never ties with another kept row's
            // (`completeTies`); should one, place decides rather than a missing value.
            guard index < a.count, index < b.count else { break }
            let order = index == 0 ? first : (index == 1 ? second : rest[index - 2])
            switch Self.compare(a[index], b[index], order) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return aPosition < bPosition
    }

    /// Whether the leads alone put a row with tie key `a` before one with `b`: their
    /// first values are different integers, or (with a lead of two) equal integers and
    /// their second values different integers; nil when the other values must decide.
    /// What `SortKey.compare` answers for integers.
    @inline(__always)
    private func leadDecides(_ a: TieKey, _ b: TieKey) -> Bool? {
        guard a.kind == 1, b.kind == 1 else { return nil }
        if a.bits != b.bits { return (a.bits < b.bits) == first.ascending }
        guard a.secondKind == 1, b.secondKind == 1, a.secondBits != b.secondBits else { return nil }
        return (a.secondBits < b.secondBits) == second.ascending
    }

    /// Whether a row with these values would be kept (always, without a capacity).
    /// Kept rows whose lead ties with these values' are completed first.
    func accepts(_ values: [Value], position: Int) throws -> Bool {
        if complete != nil, !values.isEmpty { try completeTies(with: values) }
        guard let capacity else { return true }
        if rows.count < capacity { return true }
        guard let worst = heap.first else { return false }
        if !values.isEmpty, let decided = leadDecides(tieKey(of: values), tieKeys[worst]) { return decided }
        return rows.withUnsafeBufferPointer { rows in precedes(values, position, rows[worst].values, rows[worst].position) }
    }

    /// Whether a row whose lead is `first` (and `second`, read only when `leadCount` is
    /// 2) is turned away whatever its other values: the collector is full and its
    /// worst row comes before it on the lead alone. A full top-k turns most candidates
    /// away this way, before their other sort fields (a name to sort by is a string
    /// made) are decoded.
    func rejects(first: Value, second: Value? = nil) -> Bool {
        guard let capacity, rows.count >= capacity, let worst = heap.first, keyCount > 0 else { return false }
        let key = tieKey(first: first, second: second), kept = tieKeys[worst]
        // Integers: turned away when the kept lead comes first; a tie is not.
        if key.kind == 1, kept.kind == 1 { return leadDecides(kept, key) ?? false }
        return rows.withUnsafeBufferPointer { rows in
            switch Self.compare(first, rows[worst].values[0], self.first) {
            case .orderedDescending: return true
            case .orderedAscending: return false
            case .orderedSame:
                guard leadCount == 2, let second, rows[worst].values.count > 1 else { return false }
                return Self.compare(second, rows[worst].values[1], self.second) == .orderedDescending
            }
        }
    }

    /// Adds a row (check `accepts` first when there is a capacity; a row with its first
    /// sort value only, `admitsPartial` first).
    ///
    /// The row is consumed: moved into its place, not copied there and released by the
    /// caller (its values, object and record retained and released once more each).
    func add(_ row: consuming FetchRow) {
        guard let capacity else {
            rows.append(row)
            return
        }
        guard capacity > 0 else { return }
        let tieKey = tieKey(of: row.values)
        if rows.count < capacity {
            rows.append(consume row)
            tieKeys.append(tieKey)
            heap.append(rows.count - 1)
            siftUp(heap.count - 1)
        } else if let worst = heap.first {
            rows[worst] = consume row
            tieKeys[worst] = tieKey
            siftDown(0)
        }
    }

    /// Adds a partial row (its lead only, with its record) that
    /// `admitsPartial(first:second:)` let in. When it replaces the worst kept row, it takes
    /// that row's place and storage: its values array and record bytes are written
    /// over the leaving row's, so a row entering a full top-k allocates nothing (about
    /// two rows in three that enter an indexed query's top 20 of 100 replace one).
    func addPartial(key: RecordKey, position: Int, first: Value, second: Value? = nil, view: RecordView) throws {
        let lead = leadCount == 2 ? second : nil
        guard let capacity, capacity > 0, rows.count >= capacity, let worst = heap.first else {
            add(FetchRow(key: key, position: position, values: lead.map { [first, $0] } ?? [first], object: nil, record: try view.record()))
            return
        }
        var record = rows[worst].record.take() ?? Record(key: key, sequence: view.sequence)
        do {
            try view.copy(into: &record)
        } catch {
            rows[worst].record = record
            throw error
        }
        rows[worst].record = record
        rows[worst].key = key
        rows[worst].position = position
        rows[worst].object = nil
        rows[worst].values.removeAll(keepingCapacity: true)
        rows[worst].values.append(first)
        if let lead { rows[worst].values.append(lead) }
        tieKeys[worst] = tieKey(first: first, second: lead)
        siftDown(0)
    }

    /// The rows in result order, handed over: the collector is empty afterwards. The
    /// positions are sorted (comparing rows, never moving them), then the rows are put
    /// in that order where they lie, cycle by cycle: a swap in a buffer moves a row
    /// without retaining it, where copying each into a new array retained its values,
    /// object and record, and sorting the rows themselves moved them far more often.
    func finish() -> [FetchRow] {
        var result: [FetchRow] = [], keys: [TieKey] = []
        swap(&result, &rows)
        swap(&keys, &tieKeys)
        heap.removeAll()
        guard keyCount > 0, result.count > 1 else { return result }
        // Without a capacity no tie keys were kept.
        let haveKeys = keys.count == result.count
        result.withUnsafeMutableBufferPointer { rows in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: rows.count) { buffer in
                var order = buffer
                for i in 0..<rows.count { order[i] = i }
                let sorted = UnsafeBufferPointer(rows)
                keys.withUnsafeBufferPointer { keys in
                    order.sort { a, b in
                        if haveKeys, let decided = leadDecides(keys[a], keys[b]) { return decided }
                        return precedes(sorted[a].values, sorted[a].position, sorted[b].values, sorted[b].position)
                    }
                }
                // order[i] is the row that belongs at i. Each cycle is followed once:
                // the row first at `start` travels along it, swap by swap, while each
                // place it leaves takes its own row.
                for start in 0..<rows.count where order[start] != start {
                    var hole = start
                    while order[hole] != start {
                        let next = order[hole]
                        rows.swapAt(hole, next)
                        order[hole] = hole
                        hole = next
                    }
                    order[hole] = hole
                }
            }
        }
        return result
    }

    /// Whether the row at heap position `i` comes after the one at `j`: the heap is a
    /// max-heap by result order (a parent comes after its children). A sift reads the
    /// rows and their tie keys and moves the heap's positions through buffers taken
    /// once per sift: each access to the class's arrays retained and released them.
    @inline(__always)
    private func after(_ i: Int, _ j: Int, _ rows: UnsafeBufferPointer<FetchRow>, _ keys: UnsafeBufferPointer<TieKey>,
                       _ heap: UnsafeMutableBufferPointer<Int>) -> Bool {
        let a = heap[j], b = heap[i]
        if let decided = leadDecides(keys[a], keys[b]) { return decided }
        return precedes(rows[a].values, rows[a].position, rows[b].values, rows[b].position)
    }

    private func siftUp(_ start: Int) {
        rows.withUnsafeBufferPointer { rows in
            tieKeys.withUnsafeBufferPointer { keys in
                heap.withUnsafeMutableBufferPointer { heap in
                    var child = start
                    while child > 0 {
                        let parent = (child - 1) / 2
                        guard after(child, parent, rows, keys, heap) else { return }
                        heap.swapAt(child, parent)
                        child = parent
                    }
                }
            }
        }
    }

    private func siftDown(_ start: Int) {
        rows.withUnsafeBufferPointer { rows in
            tieKeys.withUnsafeBufferPointer { keys in
                heap.withUnsafeMutableBufferPointer { heap in
                    var parent = start
                    while true {
                        let left = 2 * parent + 1, right = left + 1
                        var largest = parent
                        if left < heap.count && after(left, largest, rows, keys, heap) { largest = left }
                        if right < heap.count && after(right, largest, rows, keys, heap) { largest = right }
                        guard largest != parent else { return }
                        heap.swapAt(parent, largest)
                        parent = largest
                    }
                }
            }
        }
    }
}
