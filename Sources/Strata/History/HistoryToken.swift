/// A point in a store's history: the sequence of a committed transaction and the store
/// it belongs to, as Core Data's `NSPersistentHistoryToken`. `Codable`, so a consumer
/// keeps its place across restarts; `Comparable` within one store.
///
/// ```swift
/// let saved = try JSONEncoder().encode(transaction.token)
/// // … after a restart
/// let token = try JSONDecoder().decode(HistoryToken.self, from: saved)
/// for transaction in try store.fetchHistory(after: token) { apply(transaction) }
/// ```
///
/// A token the store handed out also carries a checksum of its transaction's history
/// entry. A store that holds another transaction at that sequence — restored from an
/// older copy and written since — refuses the token with `.historyTokenExpired`
/// rather than resume after a transaction the consumer never saw. Two tokens are equal
/// when their store and sequence are.
public struct HistoryToken: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The transaction's sequence number in its store.
    public let sequence: UInt64
    /// The store's identifier (``ObjectStore/identifier``).
    public let storeIdentifier: String
    /// CRC-32C of the transaction's history entry; nil for a token made from a
    /// sequence alone (the horizon's, a command line's, one decoded from an older
    /// encoding), which is not checked.
    package let entryChecksum: UInt32?

    package init(sequence: UInt64, storeIdentifier: String, entryChecksum: UInt32? = nil) {
        self.sequence = sequence
        self.storeIdentifier = storeIdentifier
        self.entryChecksum = entryChecksum
    }

    /// Orders tokens by sequence (tokens of two stores do not compare meaningfully).
    public static func < (a: HistoryToken, b: HistoryToken) -> Bool { a.sequence < b.sequence }

    public static func == (a: HistoryToken, b: HistoryToken) -> Bool {
        a.sequence == b.sequence && a.storeIdentifier == b.storeIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sequence)
        hasher.combine(storeIdentifier)
    }

    public var description: String { "\(storeIdentifier):\(sequence)" }
}
