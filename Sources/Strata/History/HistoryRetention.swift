/// How much history a store keeps (``StoreOptions/historyRetention``): entries past
/// either bound are deleted as ``ObjectStore/deleteHistory(before:)`` deletes them, so
/// a service that never purges still keeps history within a bound.
public struct HistoryRetention: Sendable, Equatable {
    /// At most this many transactions (nil: no bound by count).
    public var maxTransactions: Int?
    /// Transactions at most this old (nil: no bound by age).
    public var maxAge: Duration?

    /// A million transactions and seven days, whichever is less.
    public init(maxTransactions: Int? = 1_000_000, maxAge: Duration? = .seconds(7 * 86_400)) {
        self.maxTransactions = maxTransactions
        self.maxAge = maxAge
    }

    /// Everything is kept until ``ObjectStore/deleteHistory(before:)``.
    public static let unbounded = HistoryRetention(maxTransactions: nil, maxAge: nil)
}
