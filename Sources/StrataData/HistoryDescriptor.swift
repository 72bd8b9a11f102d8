/// Which transactions ``ModelContext/fetchHistory(_:)`` returns, as SwiftData's
/// `HistoryDescriptor<DefaultHistoryTransaction>`.
///
/// ```swift
/// let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token })
/// for transaction in try context.fetchHistory(descriptor) { … }
/// ```
///
/// A predicate of the form `$0.token > token` (or `>=`, alone or first in an `&&`)
/// starts the read at the token; any other predicate is judged on each transaction
/// kept, from the oldest.
public struct HistoryDescriptor<Transaction>: @unchecked Sendable {
    // @unchecked: Foundation's `Predicate` is Sendable; the generic parameter only names the type.
    public var predicate: Foundation.Predicate<Transaction>?
    /// At most this many transactions (nil: all that match).
    public var fetchLimit: Int?

    public init(predicate: Foundation.Predicate<Transaction>? = nil) {
        self.predicate = predicate
    }
}

extension HistoryDescriptor where Transaction == DefaultHistoryTransaction {
    /// The token a predicate's first condition `$0.token > token` (or `>=`) starts
    /// the read after, nil when it has none.
    var startToken: DefaultHistoryToken? {
        guard let predicate else { return nil }
        return Self.start(in: predicate.expression)
    }

    private typealias TokenPath = PredicateExpressions.KeyPath<PredicateExpressions.Variable<DefaultHistoryTransaction>, DefaultHistoryToken>

    private static func start(in expression: any StandardPredicateExpression<Bool>) -> DefaultHistoryToken? {
        if let and = expression as? any ConjunctionLeft { return and.leftToken }
        if let comparison = expression as? PredicateExpressions.Comparison<TokenPath, PredicateExpressions.Value<DefaultHistoryToken>>,
           comparison.lhs.keyPath == \DefaultHistoryTransaction.token {
            let token = comparison.rhs.value
            switch comparison.op {
            case .greaterThan: return token
            case .greaterThanOrEqual: return token.sequence == 0 ? nil : DefaultHistoryToken(sequence: token.sequence - 1, storeIdentifier: token.storeIdentifier)
            default: return nil
            }
        }
        return nil
    }
}

/// A conjunction, looked into for its left side's token bound.
private protocol ConjunctionLeft {
    var leftToken: DefaultHistoryToken? { get }
}

extension PredicateExpressions.Conjunction: ConjunctionLeft where LHS: StandardPredicateExpression, LHS.Output == Bool {
    var leftToken: DefaultHistoryToken? {
        let left: any StandardPredicateExpression<Bool> = lhs
        return HistoryDescriptor<DefaultHistoryTransaction>.startTokenOf(left)
    }
}

extension HistoryDescriptor where Transaction == DefaultHistoryTransaction {
    static func startTokenOf(_ expression: any StandardPredicateExpression<Bool>) -> DefaultHistoryToken? { start(in: expression) }
}
