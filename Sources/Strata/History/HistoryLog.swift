import Foundation
import StrataLog

/// Where history lives in a store (docs/FORMAT.md §11.6): under entity tag 0xFFFF,
/// which no entity is given. Serial 0 holds the state record (whether history is
/// tracked, and the horizon); the entry of transaction `s` is serial `s`, so that the
/// entries are in sequence order and a range walk lists them after any token.
enum HistoryLog {
    static let tag: UInt16 = 0xFFFF
    /// The state record's key, and the base the engine adds each commit's sequence to.
    static let stateKey = StoreSchema.counterKey(tag: tag)
    /// Every entry's key.
    static let entries = StoreSchema.range(tag: tag)

    static func key(_ sequence: UInt64) -> RecordKey { RecordKey(stateKey.rawValue | (sequence & ObjectID.serialMask)) }

    static func sequence(of key: RecordKey) -> UInt64 { key.rawValue & ObjectID.serialMask }

    /// The state record: whether history is tracked, and the horizon — the first
    /// sequence whose entry is kept (entries before it were deleted, or history was
    /// off). A token is good when nothing between it and the horizon is missing.
    struct State: Equatable {
        var tracking: Bool
        var horizon: UInt64

        static let version: UInt8 = 1

        func encoded() -> [UInt8] {
            var w = FieldWriter()
            w.u8(Self.version)
            w.u8(tracking ? 1 : 0)
            w.varint(horizon)
            return w.bytes
        }

        static func decode(_ bytes: [UInt8]) throws -> State {
            var r = FieldReader(bytes: bytes)
            let version = try r.u8()
            guard version == Self.version else { throw StrataError(.corrupt, "the history state record has version \(version); this build reads \(Self.version)") }
            let tracking = try r.u8()
            guard tracking <= 1 else { throw StrataError(.corrupt, "the history state record holds tracking flag \(tracking)") }
            let horizon = try r.varint()
            guard r.position == bytes.count else { throw StrataError(.corrupt, "the history state record has bytes after its value") }
            return State(tracking: tracking == 1, horizon: horizon)
        }
    }
}
