import Foundation
import StrataLog

/// A history entry's bytes (docs/FORMAT.md §11.6): who committed, when, and each
/// object's change, keys delta-coded and attribute names listed once per entry.
struct HistoryEntry: Equatable {
    struct Change: Equatable {
        var type: HistoryTransaction.Change.ChangeType
        var key: RecordKey
        /// Inserts only: how many consecutive keys from `key` (a batch insert's run).
        var count = 1
        var updated: [String] = []
        var tombstone: [(String, Value)] = []

        init(type: HistoryTransaction.Change.ChangeType, key: RecordKey, count: Int = 1, updated: [String] = [], tombstone: [(String, Value)] = []) {
            self.type = type
            self.key = key
            self.count = count
            self.updated = updated
            self.tombstone = tombstone
        }

        static func == (a: Change, b: Change) -> Bool {
            a.type == b.type && a.key == b.key && a.count == b.count && a.updated == b.updated
                && a.tombstone.map(\.0) == b.tombstone.map(\.0) && a.tombstone.map(\.1) == b.tombstone.map(\.1)
        }
    }

    var timestamp: Date
    var author: String?
    var contextName: String?
    var changes: [Change] = []

    static let version: UInt8 = 1
    /// The change code of a run of inserted keys (a batch insert's): the first key's
    /// delta, then the count.
    static let insertedRun: UInt8 = 4

    func encoded() -> [UInt8] {
        var names: [String: Int] = [:]
        var table: [String] = []
        func number(_ name: String) -> Int {
            if let n = names[name] { return n }
            names[name] = table.count
            table.append(name)
            return table.count - 1
        }
        var body = FieldWriter()
        body.varint(UInt64(changes.count))
        var previous: UInt64 = 0
        for change in changes {
            let run = change.type == .insert && change.count > 1
            body.u8(run ? Self.insertedRun : change.type.code)
            let delta = Int64(bitPattern: change.key.rawValue &- previous)
            body.varint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
            previous = change.key.rawValue
            switch change.type {
            case .insert:
                if run {
                    body.varint(UInt64(change.count))
                    previous = change.key.rawValue &+ UInt64(change.count - 1)
                }
            case .update:
                body.varint(UInt64(change.updated.count))
                for name in change.updated { body.varint(UInt64(number(name))) }
            case .delete:
                body.varint(UInt64(change.tombstone.count))
                for (name, value) in change.tombstone {
                    body.varint(UInt64(number(name)))
                    ObjectCodec.encode(value, into: &body)
                }
            }
        }
        var w = FieldWriter()
        w.u8(Self.version)
        w.u8((author == nil ? 0 : 1) | (contextName == nil ? 0 : 2))
        w.varint(UInt64(min(max(0, (timestamp.timeIntervalSince1970 * 1_000_000).rounded()), 0x1p62)))
        if let author { w.string(author) }
        if let contextName { w.string(contextName) }
        w.varint(UInt64(table.count))
        for name in table { w.string(name) }
        w.bytes.append(contentsOf: body.bytes)
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> HistoryEntry {
        var r = FieldReader(bytes: bytes)
        let version = try r.u8()
        guard version == Self.version else { throw StrataError(.corrupt, "a history entry has version \(version); this build reads \(Self.version)") }
        let flags = try r.u8()
        guard flags & ~3 == 0 else { throw StrataError(.corrupt, "a history entry holds unknown flags \(flags)") }
        let micros = try r.varint()
        var entry = HistoryEntry(timestamp: Date(timeIntervalSince1970: Double(micros) / 1_000_000))
        if flags & 1 != 0 { entry.author = try r.string() }
        if flags & 2 != 0 { entry.contextName = try r.string() }
        let nameCount = try r.length()
        var table: [String] = []
        table.reserveCapacity(nameCount)
        for _ in 0..<nameCount { table.append(try r.string()) }
        func name() throws -> String {
            let n = try r.varint()
            guard n < UInt64(table.count) else { throw StrataError(.corrupt, "a history entry names attribute \(n) of \(table.count)") }
            return table[Int(n)]
        }
        let count = try r.length()
        entry.changes.reserveCapacity(count)
        var previous: UInt64 = 0
        for _ in 0..<count {
            let code = try r.u8()
            guard let type = code == Self.insertedRun ? .insert : HistoryTransaction.Change.ChangeType(code: code) else {
                throw StrataError(.corrupt, "a history entry holds change type \(code)")
            }
            let z = try r.varint()
            let delta = Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1)))
            let key = RecordKey(previous &+ UInt64(bitPattern: delta))
            previous = key.rawValue
            var change = Change(type: type, key: key)
            switch type {
            case .insert:
                guard code == Self.insertedRun else { break }
                let count = try r.varint()
                // At least two keys, all of them in the key's entity range.
                guard count >= 2, count <= ObjectID.serialMask - (key.rawValue & ObjectID.serialMask) + 1, count <= UInt64(Int32.max) else {
                    throw StrataError(.corrupt, "a history entry holds a run of \(count) inserted keys from \(key)")
                }
                change.count = Int(count)
                previous = key.rawValue &+ (count - 1)
            case .update:
                let n = try r.length()
                for _ in 0..<n { change.updated.append(try name()) }
            case .delete:
                let n = try r.length()
                for _ in 0..<n { change.tombstone.append((try name(), try ObjectCodec.decodeValue(&r))) }
            }
            entry.changes.append(change)
        }
        guard r.position == bytes.count else { throw StrataError(.corrupt, "a history entry has bytes after its last change") }
        return entry
    }
}

extension HistoryTransaction.Change.ChangeType {
    var code: UInt8 {
        switch self {
        case .insert: 1
        case .update: 2
        case .delete: 3
        }
    }

    init?(code: UInt8) {
        switch code {
        case 1: self = .insert
        case 2: self = .update
        case 3: self = .delete
        default: return nil
        }
    }
}
