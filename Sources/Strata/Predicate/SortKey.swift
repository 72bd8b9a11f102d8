import Foundation

/// One key of a sort order: a key path (through to-one relationships) and a direction,
/// as Core Data's `NSSortDescriptor`.
///
/// Values compare in a total order: `nil` first when ascending (last when descending),
/// then numbers (int, double and decimal together; a bool as 0 or 1), strings, dates,
/// binary data, UUIDs, URLs and composites. A list of keys sorts by the first, then
/// the next on ties; sorting is stable, so objects equal on every key keep their order.
///
/// ```swift
/// let order = [SortKey("department.name"), SortKey("salary", ascending: false)]
/// let request = FetchRequest(entityName: "Employee", sortKeys: order)
/// ```
///
/// Named `SortKey` rather than `SortDescriptor`, which Foundation declares too (a
/// generic type), so that a file importing both needs no qualification.
public struct SortKey: Sendable, Hashable {
    /// The key path whose values are compared, such as `"name"` or `"department.name"`.
    public var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// String folding applied before strings compare: `[.caseInsensitive]` sorts
    /// "apple" with "Apple".
    public var options: StringComparisonOptions

    /// Creates a sort key.
    public init(_ keyPath: String, ascending: Bool = true, options: StringComparisonOptions = []) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.options = options
    }

    /// An ascending sort key.
    public static func ascending(_ keyPath: String, options: StringComparisonOptions = []) -> SortKey {
        SortKey(keyPath, ascending: true, options: options)
    }

    /// A descending sort key.
    public static func descending(_ keyPath: String, options: StringComparisonOptions = []) -> SortKey {
        SortKey(keyPath, ascending: false, options: options)
    }

    /// The same key in the other direction.
    public var reversed: SortKey { SortKey(keyPath, ascending: !ascending, options: options) }

    /// How two values compare under this key (its direction applied).
    package func compare(_ lhs: Value, _ rhs: Value) -> ComparisonResult {
        Self.compare(lhs, rhs, ascending: ascending, options: options)
    }

    /// ``compare(_:_:)`` for a key of this direction and these options, without the
    /// key (a fetch's top-k compares many rows and need not copy its key paths).
    /// Integers and plain strings, most sort keys, are compared directly: what the
    /// total order does for two values of either kind.
    @inline(__always)
    static func compare(_ lhs: Value, _ rhs: Value, ascending: Bool, options: StringComparisonOptions) -> ComparisonResult {
        let order: ComparisonResult
        switch (lhs, rhs) {
        case (.int(let x), .int(let y)):
            order = x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        case (.string(let x), .string(let y)) where options.isEmpty:
            order = x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        default:
            order = totalOrder(lhs, rhs, options: options)
        }
        guard !ascending else { return order }
        switch order {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// The value this key sorts `subject` by.
    ///
    /// - Throws: `StrataError` `.unknownKeyPath` for a key the subject lacks;
    ///   `.typeMismatch` when the key path leads through a to-many relationship or ends
    ///   on a relationship, which have no single value to sort by.
    package func value(of subject: some PredicateSubject) throws -> Value {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch try PredicateKeyPathWalk.resolve(components, of: subject, path: keyPath) {
        case .single(.value(let value)):
            return value
        case .single(.object(_)):
            throw StrataError(.typeMismatch, "Cannot sort by the relationship '\(keyPath)'", context: ["keyPath": keyPath])
        case .many:
            throw StrataError(
                .typeMismatch, "Cannot sort by '\(keyPath)': it leads through a to-many relationship", context: ["keyPath": keyPath])
        }
    }

    /// The ascending total order of two values: `nil` first, then by kind, then by value.
    package static func totalOrder(_ lhs: Value, _ rhs: Value, options: StringComparisonOptions = []) -> ComparisonResult {
        let (leftRank, rightRank) = (rank(lhs), rank(rhs))
        if leftRank != rightRank { return leftRank < rightRank ? .orderedAscending : .orderedDescending }
        if let order = PredicateValueComparison.orderOfSameKind(lhs, rhs, options: options) { return order }
        // Left: null against null, and NaNs, which sort before every other number.
        let (leftNaN, rightNaN) = (isNaN(lhs), isNaN(rhs))
        if leftNaN != rightNaN { return leftNaN ? .orderedAscending : .orderedDescending }
        return .orderedSame
    }

    private static func rank(_ value: Value) -> Int {
        switch value {
        case .null: 0
        case .bool, .int, .double, .decimal: 1
        case .string: 2
        case .date: 3
        case .binary: 4
        case .uuid: 5
        case .url: 6
        case .composite: 7
        }
    }

    private static func isNaN(_ value: Value) -> Bool {
        switch value {
        case .double(let number): number.isNaN
        case .decimal(let number): number.isNaN
        default: false
        }
    }
}
