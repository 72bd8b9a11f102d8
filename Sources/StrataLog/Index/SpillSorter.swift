/// Sorts more items than should be held at once — a bulk commit's index entries and
/// terms (`LogStore.commit(chunks:)`) — through a temporary file.
///
/// Items are gathered up to `runLimit`; each full batch is sorted and appended to the
/// file as a run, and `drain` merges the runs through one buffered cursor each. A
/// batch whose first item does not precede the last one written extends that run
/// instead of starting another, so a bulk load whose keys rise writes one run; a
/// sorter that never fills its batch touches no file at all. Memory is the batch,
/// one write buffer, and one read buffer per run merged at once: a drain merges at
/// most `fanIn` runs, and beyond that runs are first merged up to `fanIn` at a time
/// into longer runs at the file's end (`mergeAhead`), so the read buffers stay bounded
/// however large the sort.
///
/// The file is scratch: it lives in `index/` under a `.tmp` name, which open removes
/// (FORMAT.md §4.4), and `discard` removes it after use.
struct SpillSorter<Item: SpillSortable> {
    typealias Encode = (Item, inout ByteWriter) -> Void
    typealias Decode = (inout ByteReader) throws -> Item

    private let path: String
    private let fileSystem: any FileSystem
    private let runLimit: Int
    private let fanIn: Int
    private let encode: Encode
    private let decode: Decode

    private var batch: [Item] = []
    /// Whether `batch` is known to be in order (it holds sorted runs handed over by
    /// `addSorted`, merged), so a spill writes it without checking.
    private var batchSorted = false
    private var file: (any StorageFile)?
    private var fileEnd: Int64 = 0
    /// Byte ranges of the runs written, in file order.
    private var runs: [Range<Int64>] = []
    private var lastWritten: Item?
    private(set) var count = 0

    /// - Parameter fanIn: runs merged at once (32 read buffers of 64 KiB: 2 MiB).
    init(path: String, fileSystem: any FileSystem, runLimit: Int = 65_536, fanIn: Int = 32,
         encode: @escaping Encode, decode: @escaping Decode) {
        self.path = path
        self.fileSystem = fileSystem
        self.runLimit = max(2, runLimit)
        self.fanIn = max(2, fanIn)
        self.encode = encode
        self.decode = decode
    }

    /// Whether items went to the file (tests ask; a sorted load writes one run).
    var runCount: Int { runs.count }
    /// The most runs one merge read at once, and the runs merged before the last merge
    /// (tests ask).
    private(set) var widestMerge = 0
    private(set) var runsMergedAhead = 0

    mutating func add(_ item: Item) throws {
        batch.append(item)
        batchSorted = false
        count += 1
        if batch.count >= runLimit { try spill() }
    }

    /// Adds `items`, already in order (a bulk commit sorts each chunk's terms as one
    /// piece). Sorted pieces are merged into the batch in
    /// one pass while they fit in it; the batch is never sorted again.
    mutating func addSorted(_ items: [Item]) throws {
        guard !items.isEmpty else { return }
        count += items.count
        if batch.isEmpty {
            batch = items
            batchSorted = true
        } else if batchSorted, batch.count + items.count <= runLimit {
            batch = Self.merge(batch, items)
        } else {
            try spill()
            batch = items
            batchSorted = true
        }
        if batch.count >= runLimit { try spill() }
    }

    /// The items of two sorted arrays in order (ties: `a`'s first).
    private static func merge(_ a: [Item], _ b: [Item]) -> [Item] {
        if let last = a.last, let first = b.first, !Item.spillOrder(first, last) { return a + b }
        var out: [Item] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if Item.spillOrder(b[j], a[i]) {
                out.append(b[j])
                j += 1
            } else {
                out.append(a[i])
                i += 1
            }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }

    /// Calls `body` with every item added, in order, then removes the file. Items that
    /// compare equal come in no particular order.
    mutating func drain(_ body: (Item) throws -> Void) throws {
        var merged = try sorted()
        defer { merged.close() }
        while let item = try merged.next() { try body(item) }
    }

    /// Ends the adding: every item, in order, read one at a time. The returned reader
    /// owns the file (removed when it is read to the end or closed).
    mutating func sorted() throws -> Merged {
        sortBatch()
        guard let file else {
            defer { batch = []; batchSorted = false }
            return Merged(items: batch, fileSystem: fileSystem, path: path)
        }
        try spill()
        while runs.count > fanIn { try mergeAhead(file, downTo: fanIn) }
        widestMerge = max(widestMerge, runs.count)
        let cursors = try runs.map { try RunCursor(file: file, range: $0, decode: decode) }
        self.file = nil
        runs = []
        return Merged(file: file, cursors: cursors, fileSystem: fileSystem, path: path)
    }

    /// Merges the first runs into one at the file's end, queued after the others: as
    /// few as bring the runs down to `limit`, a whole group of `fanIn` while that is not
    /// enough, so that no more is rewritten than the fan-in asks. What the merged runs
    /// occupied is left behind: the file is scratch, removed whole at the end.
    private mutating func mergeAhead(_ file: any StorageFile, downTo limit: Int) throws {
        let take = min(fanIn, runs.count - limit + 1)
        widestMerge = max(widestMerge, take)
        runsMergedAhead += take
        let cursors = try runs[..<take].map { try RunCursor(file: file, range: $0, decode: decode) }
        var items = Merged(file: file, cursors: cursors, fileSystem: fileSystem, path: path, removesFile: false)
        var run = ScratchRunWriter(file: file, at: fileEnd)
        while let item = try items.next() { try run.appendFramed { encode(item, &$0) } }
        let merged = try run.finish()
        fileEnd = merged.upperBound
        runs = Array(runs[take...]) + [merged]
    }

    /// Ends the adding, and when every item lies in one run of the file (a load whose
    /// keys rise), hands each item's encoded bytes to `body` in order, without decoding
    /// them, removes the file and returns true. Otherwise returns false having handed
    /// nothing over: `drain` still gives every item (the batch is in the file now).
    mutating func drainEncodedIfOneRun(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        sortBatch()
        guard let file else { return false }
        try spill()
        guard runs.count == 1, let run = runs.first else { return false }
        defer { discard() }
        var cursor = try RunCursor(file: file, range: run, decode: decode, first: false)
        try cursor.forEachEncoded(body)
        return true
    }

    /// The sorted items, pulled one by one: from memory, or merged from the runs
    /// through a binary heap of each run's current item, smallest on top.
    struct Merged {
        private var items: [Item] = []
        private var position = 0
        private var file: (any StorageFile)?
        private var cursors: [RunCursor] = []
        /// Each unfinished run's current item and the run's cursor. The heap holds the
        /// items themselves: comparing through the cursors copied them at every step.
        private var heap: [Head] = []
        private let fileSystem: any FileSystem
        private let path: String
        /// Whether reading to the end (or `close`) removes the file: not for a merge
        /// of some of its runs into another (`mergeAhead`).
        private let removesFile: Bool

        /// The items in memory (no file), or the runs of `file` through their cursors.
        fileprivate init(items: [Item] = [], file: (any StorageFile)? = nil, cursors: [RunCursor] = [], fileSystem: any FileSystem, path: String,
                         removesFile: Bool = true) {
            self.items = items
            self.file = file
            self.cursors = cursors
            self.fileSystem = fileSystem
            self.path = path
            self.removesFile = removesFile
            for run in self.cursors.indices {
                if let item = self.cursors[run].take() { heap.append(Head(item: item, run: run)) }
            }
            for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        }

        mutating func next() throws -> Item? {
            guard file != nil else {
                guard position < items.count else { return nil }
                defer { position += 1 }
                return items[position]
            }
            guard !heap.isEmpty else {
                close()
                return nil
            }
            let run = heap[0].run
            try cursors[run].advance()
            guard var item = cursors[run].take() else {
                heap.swapAt(0, heap.count - 1)
                let last = heap.removeLast()
                if heap.count > 1 { siftDown(0) }
                return last.item
            }
            // The run's next item takes the top's place; the top is handed out.
            swap(&item, &heap[0].item)
            if heap.count > 1 { siftDown(0) }
            return item
        }

        /// Removes the file (reading stops).
        mutating func close() {
            if removesFile { SpillSorter.remove(file, at: path, in: fileSystem) }
            file = nil
            items = []
            cursors = []
            heap = []
        }

        /// A run's current item. A struct, not a tuple: a tuple of a generic item was
        /// copied through its runtime metadata at each comparison.
        private struct Head {
            var item: Item
            var run: Int
        }

        private mutating func siftDown(_ start: Int) {
            heap.withUnsafeMutableBufferPointer { heap in
                var i = start
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < heap.count && Item.spillOrder(heap[l].item, heap[m].item) { m = l }
                    if r < heap.count && Item.spillOrder(heap[r].item, heap[m].item) { m = r }
                    if m == i { return }
                    heap.swapAt(i, m)
                    i = m
                }
            }
        }
    }

    /// Closes and removes the file, if any (after a drain, or when the commit stops).
    mutating func discard() {
        Self.remove(file, at: path, in: fileSystem)
        file = nil
        runs = []
        batch = []
        batchSorted = false
    }

    /// Closes and removes the scratch file, if there is one: it is scratch, so a
    /// failure here only leaves a `.tmp` that the next open removes.
    fileprivate static func remove(_ file: (any StorageFile)?, at path: String, in fileSystem: any FileSystem) {
        guard let file else { return }
        try? file.close()
        try? fileSystem.remove(path)
    }

    /// Sorts the batch and appends it to the file: to the last run when it follows
    /// that run's last item, as a new run otherwise.
    /// Sorts the batch unless it already is (keys allocated in rising order arrive
    /// sorted, and a stable sort of sorted input still costs a full pass of comparisons
    /// and moves).
    private mutating func sortBatch() {
        guard !batchSorted else { return }
        Self.sort(&batch)
    }

    /// Sorts `items` by the items' order unless they already are.
    static func sort(_ items: inout [Item]) {
        var sorted = true
        for i in items.indices.dropFirst() where Item.spillOrder(items[i], items[i - 1]) {
            sorted = false
            break
        }
        if !sorted { items.sort(by: Item.spillOrder) }
    }

    private mutating func spill() throws {
        guard !batch.isEmpty else { return }
        sortBatch()
        if file == nil {
            try fileSystem.remove(path)
            file = try fileSystem.open(path, mode: .create)
        }
        guard let file else { return }
        var run = ScratchRunWriter(file: file, at: fileEnd)
        for item in batch { try run.appendFramed { encode(item, &$0) } }
        let written = try run.finish()
        fileEnd = written.upperBound
        if let last = runs.last, let lastWritten, let first = batch.first, !Item.spillOrder(first, lastWritten), last.upperBound == written.lowerBound {
            runs[runs.count - 1] = last.lowerBound..<fileEnd
        } else {
            runs.append(written)
        }
        lastWritten = batch.last
        batch.removeAll(keepingCapacity: true)
        batchSorted = false
    }

    /// Reads one run back, a buffer at a time.
    fileprivate struct RunCursor {
        let file: any StorageFile
        /// The file's path, asked once (each item's reader names it).
        let path: String
        let end: Int64
        let decode: Decode
        var next: Int64
        var buffer: [UInt8] = []
        var position = 0
        var current: Item?

        /// - Parameter first: whether to decode the first item now (`current`).
        init(file: any StorageFile, range: Range<Int64>, decode: @escaping Decode, first: Bool = true) throws {
            self.file = file
            self.path = file.path
            self.end = range.upperBound
            self.next = range.lowerBound
            self.decode = decode
            if first { try advance() }
        }

        /// Hands each remaining item's bytes to `body`, undecoded, in order.
        mutating func forEachEncoded(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
            while let item = try nextItem() {
                try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[item])) }
            }
        }

        mutating func advance() throws {
            guard let item = try nextItem() else { current = nil; return }
            var reader = ByteReader(buffer, from: item.lowerBound, to: item.upperBound, path: path)
            current = try decode(&reader)
        }

        /// Where the next item's bytes lie in `buffer` (its length prefix passed over),
        /// nil at the run's end.
        private mutating func nextItem() throws -> Range<Int>? {
            guard try available(4) else { return nil }
            let length = Int(buffer[position]) | Int(buffer[position + 1]) << 8 | Int(buffer[position + 2]) << 16 | Int(buffer[position + 3]) << 24
            guard try available(4 + length) else {
                throw StrataError(.corrupt, "spill file ends inside an item", path: path, offset: next)
            }
            defer { position += 4 + length }
            return (position + 4)..<(position + 4 + length)
        }

        /// The current item, moved out (nil until the next `advance`).
        mutating func take() -> Item? {
            var item: Item?
            swap(&item, &current)
            return item
        }

        /// Whether `count` bytes are buffered from `position`, reading more when not.
        private mutating func available(_ count: Int) throws -> Bool {
            if buffer.count - position >= count { return true }
            let left = end - next
            if left <= 0 { return false }
            let want = Int(min(left, Int64(max(count, 64 << 10))))
            let more = try file.readExactly(want, at: next)
            buffer = Array(buffer[position...]) + more
            position = 0
            next += Int64(want)
            return buffer.count >= count
        }
    }
}

/// What a `SpillSorter` sorts: items with one order of their own. A static requirement
/// rather than a closure, so that the sort and the merge call it directly: a stored
/// closure of generic items goes through a thunk that copies both items at each
/// comparison.
protocol SpillSortable {
    static func spillOrder(_ a: Self, _ b: Self) -> Bool
}
