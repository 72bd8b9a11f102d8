/// Sorts more index terms than a memory budget holds: terms are packed
/// (`PackedTerms`) until they hold `budget` bytes or `runLimit` terms, then sorted and
/// written to a scratch file as a run; `drain` merges the runs and what is still in
/// memory through a heap of each run's current term, read through a buffer per run.
/// A sorter that never fills its batch touches no file.
///
/// Memory is the budget, one read buffer per run merged at once, and the heap — not
/// the terms' count: a chunked commit's terms and a migration's uniqueness check sort
/// every term of a store of any size this way. A drain merges at most `fanIn` sources
/// at once: beyond that, runs are first merged up to `fanIn` at a time into longer runs
/// at the file's end (`mergeAhead`), so that the read buffers stay bounded however many
/// runs a very large sort spilled. A run is the terms' item bytes back to back (each
/// says its length), so a run read back is handed on without decoding.
package struct PackedTermSorter {
    private let path: String
    private let fileSystem: any FileSystem
    private let budget: Int
    private let runLimit: Int
    private let fanIn: Int
    private var terms = PackedTerms()
    private var file: (any StorageFile)?
    private var fileEnd: Int64 = 0
    private var runs: [Range<Int64>] = []
    package private(set) var count = 0

    /// - Parameters:
    ///   - path: the scratch file's path, created at the first spill and removed by
    ///     `drain` or `discard`.
    ///   - budget: bytes of packed terms held before a run is spilled.
    ///   - runLimit: terms held before a run is spilled, whatever their bytes.
    ///   - fanIn: runs merged at once (64 read buffers of 32 KiB: 2 MiB).
    package init(path: String, fileSystem: any FileSystem, budget: Int, runLimit: Int = .max, fanIn: Int = 64) {
        self.path = path
        self.fileSystem = fileSystem
        self.budget = max(4096, budget)
        self.runLimit = max(2, runLimit)
        self.fanIn = max(2, fanIn)
    }

    /// How many runs went to the file (tests ask).
    package var runCount: Int { runs.count }
    /// The most runs one merge read at once, and the runs merged before the last merge
    /// (tests ask).
    package private(set) var widestMerge = 0
    package private(set) var runsMergedAhead = 0

    package mutating func add(index: UInt32, value: UnsafeRawBufferPointer, key: RecordKey, sequence: UInt64) throws {
        terms.append(index: index, value: value, key: key, sequence: sequence)
        count += 1
        if terms.byteCount >= budget || terms.count >= runLimit { try spill() }
    }

    package mutating func add(index: UInt32, value: [UInt8], key: RecordKey, sequence: UInt64) throws {
        try value.withUnsafeBytes { try add(index: index, value: $0, key: key, sequence: sequence) }
    }

    private mutating func spill() throws {
        guard !terms.isEmpty else { return }
        terms.sort()
        if file == nil {
            try fileSystem.remove(path)
            file = try fileSystem.open(path, mode: .create)
        }
        guard let file else { return }
        var run = ScratchRunWriter(file: file, at: fileEnd)
        try terms.forEach { try run.append($0.encoded) }
        let written = try run.finish()
        fileEnd = written.upperBound
        runs.append(written)
        terms.removeAll(keepingCapacity: true)
    }

    /// Once runs went to the file, writes the terms still in memory as one more run
    /// and lets go of the buffer: for a sort whose drain waits while other work
    /// needs the memory (an index build's uniqueness check, drained while its commit
    /// writes the index file). A sort that never spilled keeps its terms in memory.
    package mutating func setAside() throws {
        guard file != nil else { return }
        try spill()
        terms.removeAll(keepingCapacity: false)
    }

    /// Calls `body` with every term added, in index file order (`PackedTerm.order`),
    /// then removes the file. A term's bytes are valid during the call only.
    package mutating func drain(_ body: (PackedTerm) throws -> Void) throws {
        defer { discard() }
        terms.sort()
        guard let file else {
            try terms.forEach(body)
            return
        }
        // The last merge reads the runs and the terms in memory: one source each.
        while runs.count > fanIn - 1 { try mergeAhead(file, downTo: fanIn - 1) }
        widestMerge = max(widestMerge, runs.count + 1)
        var sources: [PackedRunCursor] = []
        for run in runs { sources.append(try PackedRunCursor(file: file, range: run)) }
        let memory = sources.count
        let memoryCount = terms.count
        try terms.withTermsInOrder { inMemory in
            var memoryPosition = 0
            try Self.merge(heads: sources.map(\.current) + [memoryCount > 0 ? inMemory(0) : nil], next: { source in
                if source == memory {
                    memoryPosition += 1
                    return memoryPosition < memoryCount ? inMemory(memoryPosition) : nil
                }
                try sources[source].advance()
                return sources[source].current
            }, body)
        }
    }

    /// Merges the first runs into one at the file's end, queued after the others: as
    /// few as bring the runs down to `limit`, a whole group of `fanIn` while that is not
    /// enough, so that no more is rewritten than the fan-in asks. What the merged runs
    /// occupied is left behind: the file is scratch, removed whole at the end.
    private mutating func mergeAhead(_ file: any StorageFile, downTo limit: Int) throws {
        let take = min(fanIn, runs.count - limit + 1)
        widestMerge = max(widestMerge, take)
        runsMergedAhead += take
        let sources = try runs[..<take].map { try PackedRunCursor(file: file, range: $0) }
        var run = ScratchRunWriter(file: file, at: fileEnd)
        try Self.merge(heads: sources.map(\.current), next: { source in
            try sources[source].advance()
            return sources[source].current
        }, { try run.append($0.encoded) })
        let merged = try run.finish()
        fileEnd = merged.upperBound
        runs = Array(runs[take...]) + [merged]
    }

    /// Hands every term of the sources to `body` in index file order, through a heap of
    /// source numbers with the smallest current term on top. `heads` holds each
    /// source's current term (nil: none), read once when it advances: comparing
    /// through the sources at every step of the heap was most of a merge; `next`
    /// advances a source and gives its new current term.
    private static func merge(heads: [PackedTerm?], next: (Int) throws -> PackedTerm?, _ body: (PackedTerm) throws -> Void) throws {
        var heads = heads
        var heap: [Int] = heads.indices.filter { heads[$0] != nil }
        func less(_ a: Int, _ b: Int) -> Bool { PackedTerm.order(heads[a]!, heads[b]!) < 0 }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && less(heap[l], heap[m]) { m = l }
                if r < heap.count && less(heap[r], heap[m]) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while let top = heap.first {
            try body(heads[top]!)
            heads[top] = try next(top)
            if heads[top] == nil {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if heap.count > 1 { siftDown(0) }
        }
    }

    /// Forgets the terms and removes the file, if any: it is scratch, so a failure
    /// here leaves only a file the next open (or the next use of the path) removes.
    package mutating func discard() {
        if let file {
            try? file.close()
            try? fileSystem.remove(path)
        }
        file = nil
        fileEnd = 0
        runs = []
        terms.removeAll()
    }
}

/// Reads one spilled run back through a buffer of its own, a term at a time.
final class PackedRunCursor {
    private let file: any StorageFile
    private var next: Int64
    private let end: Int64
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var filled = 0
    /// The run's current term, nil past its end; valid until `advance`.
    private(set) var current: PackedTerm?

    init(file: any StorageFile, range: Range<Int64>) throws {
        self.file = file
        next = range.lowerBound
        end = range.upperBound
        // 32 KiB: a merge of many runs holds one each (a million objects' terms in runs
        // of a few MiB are dozens). A longer term grows it.
        buffer = .allocate(byteCount: 32 << 10, alignment: 8)
        try advance()
    }

    deinit { buffer.deallocate() }

    /// Moves past the current term (at the start: to the first).
    func advance() throws {
        if let current { start += current.encoded.count }
        current = nil
        guard try available(6) else { return }
        let length = Int(UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: start + 4, as: UInt16.self)))
        let size = PackedTerms.itemOverhead + length
        guard try available(size) else {
            throw StrataError(.corrupt, "a scratch run of sorted terms ends inside a term", path: file.path, offset: next)
        }
        current = PackedTerm(UnsafeRawBufferPointer(rebasing: buffer[start..<start + size]))
    }

    /// Whether `count` bytes are buffered from `start`, reading more when not; false
    /// at the run's end.
    private func available(_ count: Int) throws -> Bool {
        if filled - start >= count { return true }
        if next >= end { return filled - start >= count && filled > start }
        // Keep what is left, at the front, and fill the rest.
        let left = filled - start
        if count > buffer.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
            if left > 0 { grown.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: left) }
            buffer.deallocate()
            buffer = grown
            start = 0
        }
        if left > 0, start > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: left) }
        start = 0
        filled = left
        let want = Int(min(end - next, Int64(buffer.count - filled)))
        var got = 0
        while got < want {
            let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled + got..<filled + want]), at: next + Int64(got))
            guard n > 0 else { throw StrataError(.corrupt, "a scratch run of sorted terms is cut short", path: file.path, offset: next + Int64(got)) }
            got += n
        }
        next += Int64(got)
        filled += got
        return filled - start >= count
    }
}
