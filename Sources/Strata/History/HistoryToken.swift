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
public struct HistoryToken: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The transaction's sequence number in its store.
    public let sequence: UInt64
    /// The store's identifier (``ObjectStore/identifier``).
    public let storeIdentifier: String

    package init(sequence: UInt64, storeIdentifier: String) {
        self.sequence = sequence
        self.storeIdentifier = storeIdentifier
    }

    /// Orders tokens by sequence (tokens of two stores do not compare meaningfully).
    public static func < (a: HistoryToken, b: HistoryToken) -> Bool { a.sequence < b.sequence }

    public var description: String { "\(storeIdentifier):\(sequence)" }
}
