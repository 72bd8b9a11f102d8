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
    ///
    /// Version 2 adds the version hash of the model the state was written under: an
    /// open whose model differs knows a migration came since, even when a crash
    /// stopped the migrating open before it could restart the history.
    struct State: Equatable {
        var tracking: Bool
        var horizon: UInt64
        /// Nil in a version-1 record.
        var modelHash: String?

        static let version: UInt8 = 2

        func encoded() -> [UInt8] {
            var w = FieldWriter()
            w.u8(modelHash == nil ? 1 : Self.version)
            w.u8(tracking ? 1 : 0)
            w.varint(horizon)
            if let modelHash { w.string(modelHash) }
            return w.bytes
        }

        static func decode(_ bytes: [UInt8]) throws -> State {
            var r = FieldReader(bytes: bytes)
            let version = try r.u8()
            guard version == 1 || version == Self.version else {
                throw StrataError(.corrupt, "the history state record has version \(version); this build reads 1 and \(Self.version)")
            }
            let tracking = try r.u8()
            guard tracking <= 1 else { throw StrataError(.corrupt, "the history state record holds tracking flag \(tracking)") }
            let horizon = try r.varint()
            // Sequences are below 2^48 (an entry's key holds one in its serial bits).
            guard horizon >= 1, horizon <= ObjectID.serialMask else {
                throw StrataError(.corrupt, "the history state record holds horizon \(horizon), outside 1…2^48 − 1")
            }
            let modelHash = version >= 2 ? try r.string() : nil
            guard r.position == bytes.count else { throw StrataError(.corrupt, "the history state record has bytes after its value") }
            return State(tracking: tracking == 1, horizon: horizon, modelHash: modelHash)
        }
    }
}
