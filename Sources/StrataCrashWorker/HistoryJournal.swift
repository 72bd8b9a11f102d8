import Foundation

/// What the `history` worker says it did, line by line, in a file beside the store
/// (`STORE.journal`): the history crash test holds the store's history against it.
///
/// ```
/// OPEN 12                                   the store opened at sequence 12
/// BEGIN save i:<key>:<name>:<value> u:<key>:<names>:<note>:<value> d:<key>:<name>
/// BEGIN insert <name>:<value> …             a batch insert of these objects
/// BEGIN delete <key>:<name> …               a batch delete that removes exactly these
/// BEGIN maintenance <what>                  an operation that changes no object
/// END <first> <last> [<key> …]              it returned, having committed first…last
/// ```
///
/// Keys are hexadecimal; names and notes hold neither spaces nor colons. A `BEGIN` is
/// written before the operation starts and an `END` (fsynced) after it returned, so an
/// operation the kill interrupted is the last `BEGIN` without an `END`; an `END`'s keys
/// are a batch insert's, in the order of its `BEGIN`'s names.
enum HistoryJournal {
    static func path(store: String) -> String { store + ".journal" }

    /// One object's change, as the worker made it.
    enum Change: Equatable, Sendable {
        case insert(key: UInt64, name: String, value: Int)
        /// `value` is the object's value after the update, whether or not it wrote it.
        case update(key: UInt64, attributes: [String], note: String, value: Int)
        case delete(key: UInt64, name: String)

        var key: UInt64 {
            switch self {
            case .insert(let key, _, _), .update(let key, _, _, _), .delete(let key, _): key
            }
        }
    }

    enum Operation: Equatable, Sendable {
        /// A context save by the worker's author.
        case save([Change])
        /// A batch insert (either form) of objects with these names and values.
        case insert([Named])
        /// A batch delete whose predicate matched exactly these objects.
        case delete([Change])
        /// Anything that changes no object: deleteHistory, a compaction, a batch
        /// operation that matched nothing.
        case maintenance(String)
    }

    struct Named: Equatable, Sendable {
        var name: String
        var value: Int
    }

    enum Line: Equatable, Sendable {
        case open(sequence: UInt64)
        case begin(Operation)
        /// `inserted`: a batch insert's new keys, in the order of its names.
        case end(first: UInt64, last: UInt64, inserted: [UInt64])
    }

    static func encode(_ line: Line) -> String {
        func hex(_ key: UInt64) -> String { String(key, radix: 16) }
        switch line {
        case .open(let sequence):
            return "OPEN \(sequence)"
        case .begin(.save(let changes)):
            return (["BEGIN", "save"] + changes.map { change in
                switch change {
                case let .insert(key, name, value): "i:\(hex(key)):\(name):\(value)"
                case let .update(key, attributes, note, value): "u:\(hex(key)):\(attributes.joined(separator: ",")):\(note):\(value)"
                case let .delete(key, name): "d:\(hex(key)):\(name)"
                }
            }).joined(separator: " ")
        case .begin(.insert(let objects)):
            return (["BEGIN", "insert"] + objects.map { "\($0.name):\($0.value)" }).joined(separator: " ")
        case .begin(.delete(let changes)):
            return (["BEGIN", "delete"] + changes.map { change in
                if case let .delete(key, name) = change { return "\(hex(key)):\(name)" }
                return "?"
            }).joined(separator: " ")
        case .begin(.maintenance(let what)):
            return "BEGIN maintenance \(what)"
        case let .end(first, last, inserted):
            return (["END", "\(first)", "\(last)"] + inserted.map(hex)).joined(separator: " ")
        }
    }

    /// Nil for a line no worker writes.
    static func decode(_ text: String) -> Line? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        func key(_ text: String) -> UInt64? { UInt64(text, radix: 16) }
        switch fields.first {
        case "OPEN":
            guard fields.count == 2, let sequence = UInt64(fields[1]) else { return nil }
            return .open(sequence: sequence)
        case "END":
            guard fields.count >= 3, let first = UInt64(fields[1]), let last = UInt64(fields[2]) else { return nil }
            let keys = fields.dropFirst(3).compactMap(key)
            guard keys.count == fields.count - 3 else { return nil }
            return .end(first: first, last: last, inserted: keys)
        case "BEGIN":
            guard fields.count >= 2 else { return nil }
            let tokens = fields.dropFirst(2).map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
            switch fields[1] {
            case "save":
                var changes: [Change] = []
                for parts in tokens {
                    switch (parts.first, parts.count) {
                    case ("i", 4):
                        guard let k = key(parts[1]), let value = Int(parts[3]) else { return nil }
                        changes.append(.insert(key: k, name: parts[2], value: value))
                    case ("u", 5):
                        guard let k = key(parts[1]), let value = Int(parts[4]) else { return nil }
                        changes.append(.update(key: k, attributes: parts[2].split(separator: ",").map(String.init), note: parts[3], value: value))
                    case ("d", 3):
                        guard let k = key(parts[1]) else { return nil }
                        changes.append(.delete(key: k, name: parts[2]))
                    default:
                        return nil
                    }
                }
                return .begin(.save(changes))
            case "insert":
                var objects: [Named] = []
                for parts in tokens {
                    guard parts.count == 2, let value = Int(parts[1]) else { return nil }
                    objects.append(Named(name: parts[0], value: value))
                }
                return .begin(.insert(objects))
            case "delete":
                var changes: [Change] = []
                for parts in tokens {
                    guard parts.count == 2, let k = key(parts[0]) else { return nil }
                    changes.append(.delete(key: k, name: parts[1]))
                }
                return .begin(.delete(changes))
            case "maintenance":
                guard fields.count == 3 else { return nil }
                return .begin(.maintenance(fields[2]))
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// Appends lines to the journal, each with one write(2): a SIGKILL leaves a line
    /// whole or cuts it, and the test drops a cut last line before the next round.
    final class Writer {
        private let fd: Int32

        init(path: String) throws {
            fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            guard fd >= 0 else { throw WorkerFailure("cannot open the journal \(path): errno \(errno)") }
        }

        deinit { close(fd) }

        /// `sync`: fsync before returning, so that the line outlives the machine and
        /// not only this process.
        func append(_ line: Line, sync: Bool = false) throws {
            let bytes = Array((HistoryJournal.encode(line) + "\n").utf8)
            var written = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw WorkerFailure("journal write failed: errno \(errno)") }
                written += n
            }
            if sync, fsync(fd) != 0 { throw WorkerFailure("journal fsync failed: errno \(errno)") }
        }
    }
}
