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
struct FetchRowCollector {
    let sortKeys: [SortKey]
    /// Top-k's k; nil keeps every row.
    let capacity: Int?
    private(set) var rows: [FetchRow] = []

    init(sortKeys: [SortKey], capacity: Int?) {
        self.sortKeys = sortKeys
        self.capacity = sortKeys.isEmpty ? nil : capacity
    }

    var count: Int { rows.count }

    /// Whether `a` comes before `b`: by the sort keys, then by position.
    func precedes(_ a: [Value], _ aPosition: Int, _ b: [Value], _ bPosition: Int) -> Bool {
        for (index, key) in sortKeys.enumerated() {
            switch key.compare(a[index], b[index]) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return aPosition < bPosition
    }

    /// Whether a row with these values would be kept (always, without a capacity).
    func accepts(_ values: [Value], position: Int) -> Bool {
        guard let capacity else { return true }
        if rows.count < capacity { return true }
        return rows.withUnsafeBufferPointer { rows in
            guard let worst = rows.first else { return false }
            return precedes(values, position, worst.values, worst.position)
        }
    }

    /// Whether a row whose first sort value is `first` is turned away whatever its
    /// other values: the collector is full and its worst row comes before it on the
    /// first sort key alone. A full top-k turns most candidates away this way, before
    /// their other sort fields (a name to sort by is a string made) are decoded.
    func rejects(first: Value) -> Bool {
        guard let capacity, rows.count >= capacity, let key = sortKeys.first else { return false }
        return rows.withUnsafeBufferPointer { rows in
            guard let worst = rows.first else { return false }
            return key.compare(first, worst.values[0]) == .orderedDescending
        }
    }

    /// Adds a row (check `accepts` first when there is a capacity).
    mutating func add(_ row: FetchRow) {
        guard let capacity else {
            rows.append(row)
            return
        }
        guard capacity > 0 else { return }
        if rows.count < capacity {
            rows.append(row)
            siftUp(rows.count - 1)
        } else {
            rows[0] = row
            siftDown(0)
        }
    }

    /// The rows in result order.
    /// The rows in result order; the collector is empty afterwards.
    mutating func finish() -> [FetchRow] {
        guard !sortKeys.isEmpty else { return rows }
        // Sorted in place, taken out of the collector first: `sorted` copied the rows
        // (their values, objects and records retained, then released) before sorting.
        var sorted = rows
        rows = []
        sorted.sort { precedes($0.values, $0.position, $1.values, $1.position) }
        return sorted
    }

    /// Max-heap by result order: a parent comes after its children. The rows are
    /// read in place: `rows[j].values` copied each row's values array (a retain and a
    /// release per comparison).
    private func after(_ i: Int, _ j: Int) -> Bool {
        rows.withUnsafeBufferPointer { rows in precedes(rows[j].values, rows[j].position, rows[i].values, rows[i].position) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard after(child, parent) else { return }
            rows.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var largest = parent
            if left < rows.count && after(left, largest) { largest = left }
            if right < rows.count && after(right, largest) { largest = right }
            guard largest != parent else { return }
            rows.swapAt(parent, largest)
            parent = largest
        }
    }
}
