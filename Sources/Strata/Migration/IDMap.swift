import StrataLog

/// Which destination objects each source object became, for one entity mapping:
/// (source key, destination key) pairs appended in the order sources are processed
/// (ascending key), spilled to a file in the staging directory so the map never
/// holds more than a batch in memory. Lookups find their block of the file through
/// fences (the first source of every block of `blockEntries` pairs: a sparse index
/// 1/256 of the map's size, as in a sorted table) and read that one block; the last
/// block read is kept, since lookups mostly come in ascending order.
final class IDMap {
    private let file: (any StorageFile)?
    private var pending: [(UInt64, UInt64)] = []
    private var written: Int64 = 0
    static let blockEntries = 256
    private var fences: [UInt64] = []
    private var cachedBlock: (index: Int, bytes: [UInt8])?
    /// The largest source key spilled so far: sources arrive in ascending order.
    private var lastSpilledSource: UInt64 = 0
    private var unsorted = false
    private(set) var count = 0
    static let entrySize = 16
    let spillThreshold: Int

    init(file: (any StorageFile)?, spillThreshold: Int) {
        self.file = file
        self.spillThreshold = spillThreshold
    }

    func associate(source: RecordKey, destination: RecordKey) throws {
        if let last = pending.last, last.0 > source.rawValue { unsorted = true }
        if pending.isEmpty && source.rawValue < lastSpilledSource { unsorted = true }
        pending.append((source.rawValue, destination.rawValue))
        count += 1
        if pending.count >= spillThreshold { try spill() }
    }

    func spill() throws {
        guard let file, !pending.isEmpty else { return }
        if unsorted {
            throw StrataError(.migrationFailed, "sources were associated out of key order; the id map needs ascending sources")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pending.count * Self.entrySize)
        var entryIndex = Int(written / Int64(Self.entrySize))
        for (s, d) in pending {
            if entryIndex % Self.blockEntries == 0 { fences.append(s) }
            entryIndex += 1
            withUnsafeBytes(of: s.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: d.littleEndian) { bytes.append(contentsOf: $0) }
        }
        try file.write(bytes, at: written)
        written += Int64(bytes.count)
        cachedBlock = nil
        lastSpilledSource = pending.last?.0 ?? lastSpilledSource
        pending.removeAll(keepingCapacity: true)
    }

    /// Destination keys associated with `source`, in association order.
    func destinations(of source: RecordKey) throws -> [RecordKey] {
        var result: [RecordKey] = []
        let key = source.rawValue
        // Every spilled source is at most `lastSpilledSource`: the object being
        // migrated right now is only in the pending batch.
        if let file, written > 0, key <= lastSpilledSource {
            let entries = Int(written / Int64(Self.entrySize))
            // The first block that can hold `key`: the one before the first fence not
            // below it (a key's pairs may straddle a block boundary).
            var low = 0, high = fences.count
            while low < high {
                let mid = (low + high) / 2
                if fences[mid] < key { low = mid + 1 } else { high = mid }
            }
            var block = max(low - 1, 0)
            scan: while block * Self.blockEntries < entries {
                let bytes = try self.block(block, entries: entries, file: file)
                for j in 0..<(bytes.count / Self.entrySize) {
                    let (s, d) = Self.decode(bytes, at: j * Self.entrySize)
                    if s > key { break scan }
                    if s == key { result.append(RecordKey(d)) }
                }
                block += 1
            }
        }
        if unsorted {
            for (s, d) in pending where s == key { result.append(RecordKey(d)) }
        } else {
            var low = 0, high = pending.count
            while low < high {
                let mid = (low + high) / 2
                if pending[mid].0 < key { low = mid + 1 } else { high = mid }
            }
            while low < pending.count, pending[low].0 == key {
                result.append(RecordKey(pending[low].1))
                low += 1
            }
        }
        return result
    }

    private func block(_ index: Int, entries: Int, file: any StorageFile) throws -> [UInt8] {
        if let cachedBlock, cachedBlock.index == index { return cachedBlock.bytes }
        let first = index * Self.blockEntries
        let count = min(Self.blockEntries, entries - first)
        let bytes = try file.readExactly(count * Self.entrySize, at: Int64(first) * Int64(Self.entrySize))
        cachedBlock = (index, bytes)
        return bytes
    }

    /// Source keys associated with `destination` (a scan: reverse lookups are rare).
    func sources(of destination: RecordKey) throws -> [RecordKey] {
        var result: [RecordKey] = []
        try forEach { s, d in if d == destination { result.append(s) } }
        return result
    }

    /// Every pair, in order, streamed from the file in chunks.
    func forEach(_ body: (RecordKey, RecordKey) throws -> Void) throws {
        if let file, written > 0 {
            let chunk: Int64 = 4096
            var index: Int64 = 0
            let entries = written / Int64(Self.entrySize)
            while index < entries {
                let n = min(chunk, entries - index)
                let bytes = try file.readExactly(Int(n) * Self.entrySize, at: index * Int64(Self.entrySize))
                for j in 0..<Int(n) {
                    let (s, d) = Self.decode(bytes, at: j * Self.entrySize)
                    try body(RecordKey(s), RecordKey(d))
                }
                index += n
            }
        }
        for (s, d) in pending { try body(RecordKey(s), RecordKey(d)) }
    }

    private static func decode(_ bytes: [UInt8], at offset: Int) -> (UInt64, UInt64) {
        bytes.withUnsafeBytes { raw in
            (UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
             UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
        }
    }
}
