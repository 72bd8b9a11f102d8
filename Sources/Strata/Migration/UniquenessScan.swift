import Foundation
import StrataLog

/// Checks uniqueness rules a lightweight stage adds against the stored data without
/// writing to the store: every object in a rule's scope gives its term (the bytes its
/// values index under, zero's sign folded), the (term, key) pairs are sorted — in
/// memory up to a budget, in sorted runs spilled to a scratch directory outside the
/// store beyond it — and merged, so that equal terms meet. Objects whose terms meet
/// are decoded and compared with the model's equality (terms are cut at 1,024 bytes),
/// and the first equal pair fails the stage.
///
/// Memory follows the budget and the largest group of equal terms, never the store:
/// an external merge sort, as SQLite builds an index over a table larger than its
/// cache (`CREATE UNIQUE INDEX` fails on the first duplicate it meets, as this does).
struct UniquenessScan {
    /// Where sorted runs go when the pairs outgrow `budget`: a directory of its own
    /// under `directory`, removed when the scan ends.
    struct Scratch {
        var fileSystem: any FileSystem
        var directory: String
        /// Bytes of (term, key) pairs held in memory before a sorted run is spilled.
        var budget: Int

        init(fileSystem: any FileSystem, directory: String, budget: Int) {
            self.fileSystem = fileSystem
            self.directory = directory
            self.budget = budget
        }

        /// The store's file system, its scratch directory, a quarter of its budget.
        init(_ options: StoreOptions) {
            fileSystem = options.fileSystem ?? POSIXFileSystem()
            var directory = options.scratchDirectory ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
            while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            self.directory = directory
            budget = max(4096, options.migrationMemoryBudget / 4)
        }
    }

    /// A rule the stage adds, with the names its message and error context use.
    struct Rule {
        let constraint: UniqueConstraint
        /// The destination model's version hash and the source's, for the error context.
        let sourceHash: String
        let destinationHash: String
    }

    let schema: StoreSchema
    let records: any RecordStore
    let scratch: Scratch

    /// - Throws: `.uniquenessViolation` naming the rule (`entity`, `properties`), the
    ///   `value` and both `objects`, the store unchanged; storage errors; `.corrupt`.
    func check(_ rule: Rule) throws {
        let constraint = rule.constraint
        var sorter = RunSorter(scratch: scratch)
        defer { sorter.removeRuns() }
        for tag in constraint.scopeTags.sorted() {
            try records.scan(StoreSchema.range(tag: tag), batchSize: 1024) { batch in
                for record in batch {
                    guard let values = try values(of: record, constraint),
                          let term = UniqueConstraint.equalTerms(values, compound: constraint.isCompound).first else { continue }
                    try sorter.add(term: term, key: record.key)
                }
            }
        }
        var group: [RecordKey] = []
        var groupTerm: [UInt8] = []
        try sorter.merge { term, key in
            if term == groupTerm, !group.isEmpty {
                group.append(key)
                return
            }
            try confirm(group, rule)
            group = [key]
            groupTerm = term
        }
        try confirm(group, rule)
    }

    /// The values a rule reads from a stored record (an external binary read from the
    /// blob area); nil when one is null — values are null-distinct, as in SQL — or the
    /// record's entity lacks one of the rule's attributes.
    private func values(of record: Record, _ constraint: UniqueConstraint) throws -> [Value]? {
        guard let values = try ObjectStore.storedValues(of: record, attributes: constraint.attributes, schema: schema,
                                                        readBlob: { try records.readBlob($0) }),
              !values.contains(where: \.isNull) else { return nil }
        return values
    }

    /// Objects whose terms are equal: the first two whose values are equal fail.
    private func confirm(_ keys: [RecordKey], _ rule: Rule) throws {
        guard keys.count > 1 else { return }
        var seen: [(key: RecordKey, values: [Value])] = []
        for (key, record) in zip(keys, try records.get(keys)) {
            guard let record, let values = try values(of: record, rule.constraint) else { continue }
            if let other = seen.first(where: { $0.values == values }) {
                throw violation(rule, values: values, keys: [other.key, key])
            }
            seen.append((key, values))
        }
    }

    private func violation(_ rule: Rule, values: [Value], keys: [RecordKey]) -> StrataError {
        let objects = keys.compactMap { key in
            schema.entityName(of: key).map { ObjectID(entityName: $0, key: key, storeIdentifier: "") }
        }
        return rule.constraint.migrationViolation(values: values, objects: objects, sourceHash: rule.sourceHash,
                                                  destinationHash: rule.destinationHash)
    }
}

/// (term, key) pairs sorted by term then key: in memory up to the scratch budget,
/// then as sorted runs in scratch files, merged by a heap of the runs' heads.
struct RunSorter {
    let scratch: UniquenessScan.Scratch
    private var pending: [(term: [UInt8], key: RecordKey)] = []
    private var pendingBytes = 0
    private(set) var runs: [String] = []
    private var directory: String?

    /// What one pair costs in memory beyond its term's bytes (the array's header and
    /// the tuple), so the budget counts what the heap holds.
    private static let pairOverhead = 48

    init(scratch: UniquenessScan.Scratch) { self.scratch = scratch }

    mutating func add(term: [UInt8], key: RecordKey) throws {
        pending.append((term, key))
        pendingBytes += term.count + Self.pairOverhead
        if pendingBytes >= scratch.budget { try spill() }
    }

    private static func precedes(_ a: (term: [UInt8], key: RecordKey), _ b: (term: [UInt8], key: RecordKey)) -> Bool {
        a.term.lexicographicallyPrecedes(b.term) || (a.term == b.term && a.key < b.key)
    }

    private mutating func spill() throws {
        pending.sort(by: Self.precedes)
        let dir: String
        if let directory {
            dir = directory
        } else {
            dir = scratch.directory + "/strata-unique-scan-\(UUID().uuidString)"
            try scratch.fileSystem.createDirectory(dir)
            directory = dir
        }
        let path = dir + "/run-\(runs.count)"
        runs.append(path)
        let file = try scratch.fileSystem.open(path, mode: .create)
        defer { try? file.close() }
        var w = FieldWriter()
        var offset: Int64 = 0
        for pair in pending {
            w.varint(UInt64(pair.term.count))
            w.bytes.append(contentsOf: pair.term)
            w.u64(pair.key.rawValue)
            if w.bytes.count >= 1 << 20 {
                try file.write(w.bytes, at: offset)
                offset += Int64(w.bytes.count)
                w.bytes.removeAll(keepingCapacity: true)
            }
        }
        if !w.bytes.isEmpty { try file.write(w.bytes, at: offset) }
        pending.removeAll()
        pendingBytes = 0
    }

    /// Calls `body` with every pair in order, the spilled runs and what is still in
    /// memory merged.
    mutating func merge(_ body: ([UInt8], RecordKey) throws -> Void) throws {
        pending.sort(by: Self.precedes)
        guard !runs.isEmpty else {
            for pair in pending { try body(pair.term, pair.key) }
            return
        }
        let sources: [RunReader] = try runs.map { try RunReader(file: scratch.fileSystem.open($0, mode: .readOnly)) }
        defer { for source in sources { try? source.file.close() } }
        let memory = sources.count
        var memoryIndex = 0
        // The heap holds each source's head: (term, key, source index).
        var heap: [(term: [UInt8], key: RecordKey, source: Int)] = []
        func next(_ source: Int) throws -> (term: [UInt8], key: RecordKey)? {
            if source == memory {
                guard memoryIndex < pending.count else { return nil }
                defer { memoryIndex += 1 }
                return pending[memoryIndex]
            }
            return try sources[source].next()
        }
        func less(_ a: Int, _ b: Int) -> Bool {
            Self.precedes((heap[a].term, heap[a].key), (heap[b].term, heap[b].key))
        }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count, less(l, m) { m = l }
                if r < heap.count, less(r, m) { m = r }
                guard m != i else { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for source in 0...memory {
            if let head = try next(source) { heap.append((head.term, head.key, source)) }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while let top = heap.first {
            try body(top.term, top.key)
            if let head = try next(top.source) {
                heap[0] = (head.term, head.key, top.source)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }

    /// Removes the scratch directory (the store never held it).
    func removeRuns() {
        if let directory { try? scratch.fileSystem.remove(directory) }
    }
}

/// Reads a spilled run's pairs in order through a buffer of its own.
final class RunReader {
    let file: any StorageFile
    private var buffer: [UInt8] = []
    private var position = 0
    private var fileOffset: Int64 = 0
    private var atEnd = false

    init(file: any StorageFile) { self.file = file }

    /// Makes at least `count` bytes available from `position`, or fails at the end.
    private func fill(_ count: Int) throws -> Bool {
        while buffer.count - position < count {
            guard !atEnd else { return false }
            buffer.removeFirst(position)
            position = 0
            var chunk = [UInt8](repeating: 0, count: max(1 << 18, count))
            let got = try chunk.withUnsafeMutableBytes { try file.read(into: $0, at: fileOffset) }
            if got == 0 { atEnd = true }
            fileOffset += Int64(got)
            buffer.append(contentsOf: chunk[0..<got])
        }
        return true
    }

    func next() throws -> (term: [UInt8], key: RecordKey)? {
        guard try fill(1) else { return nil }
        var length: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard try fill(1), shift < 64 else { throw StrataError(.corrupt, "scratch run is cut inside a length", path: file.path) }
            let byte = buffer[position]
            position += 1
            length |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        guard length <= 1 << 20, try fill(Int(length) + 8) else {
            throw StrataError(.corrupt, "scratch run is cut inside a term", path: file.path)
        }
        let term = Array(buffer[position..<position + Int(length)])
        position += Int(length)
        var key: UInt64 = 0
        for i in 0..<8 { key |= UInt64(buffer[position + i]) << (8 * UInt64(i)) }
        position += 8
        return (term, RecordKey(key))
    }
}
