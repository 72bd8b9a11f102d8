import StrataLog

/// Which destination objects each source object became, for one entity mapping:
/// (source key, destination key) pairs appended in the order sources are processed
/// (ascending key), spilled to a file in the staging directory so the map never
/// holds more than a batch in memory. Lookups binary-search the file.
final class IDMap {
    private let file: (any StorageFile)?
    private var pending: [(UInt64, UInt64)] = []
    private var written: Int64 = 0
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
        for (s, d) in pending {
            withUnsafeBytes(of: s.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: d.littleEndian) { bytes.append(contentsOf: $0) }
        }
        try file.write(bytes, at: written)
        written += Int64(bytes.count)
        lastSpilledSource = pending.last?.0 ?? lastSpilledSource
        pending.removeAll(keepingCapacity: true)
    }

    /// Destination keys associated with `source`, in association order.
    func destinations(of source: RecordKey) throws -> [RecordKey] {
        var result: [RecordKey] = []
        if let file, written > 0 {
            let entries = written / Int64(Self.entrySize)
            var low: Int64 = 0, high = entries
            while low < high {
                let mid = (low + high) / 2
                if try entry(mid, file).0 < source.rawValue { low = mid + 1 } else { high = mid }
            }
            var i = low
            while i < entries {
                let (s, d) = try entry(i, file)
                guard s == source.rawValue else { break }
                result.append(RecordKey(d))
                i += 1
            }
        }
        for (s, d) in pending where s == source.rawValue { result.append(RecordKey(d)) }
        return result
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

    private func entry(_ index: Int64, _ file: any StorageFile) throws -> (UInt64, UInt64) {
        Self.decode(try file.readExactly(Self.entrySize, at: index * Int64(Self.entrySize)), at: 0)
    }

    private static func decode(_ bytes: [UInt8], at offset: Int) -> (UInt64, UInt64) {
        bytes.withUnsafeBytes { raw in
            (UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
             UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
        }
    }
}
