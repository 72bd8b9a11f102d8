import Foundation

/// A number of any case, compared exactly where it can be.
enum PredicateNumber {
    case int(Int64)
    case double(Double)
    case decimal(Decimal)

    init?(_ value: Value) {
        switch value {
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .decimal(let number): self = .decimal(number)
        case .bool(let flag): self = .int(flag ? 1 : 0)
        default: return nil
        }
    }

    /// `nil` when a NaN is involved.
    func compare(to other: PredicateNumber) -> ComparisonResult? {
        switch (self, other) {
        case (.int(let a), .int(let b)):
            return PredicateValueComparison.compare(a, b)
        case (.int(let a), .double(let b)):
            return Self.compare(a, b)
        case (.double(let a), .int(let b)):
            return Self.compare(b, a).map(Self.reversed)
        case (.double(let a), .double(let b)):
            return a.isNaN || b.isNaN ? nil : PredicateValueComparison.compare(a, b)
        case (.decimal(let a), _):
            guard let b = other.decimal, !a.isNaN, !b.isNaN else { return nil }
            return PredicateValueComparison.compare(a, b)
        case (_, .decimal(let b)):
            guard let a = decimal, !a.isNaN, !b.isNaN else { return nil }
            return PredicateValueComparison.compare(a, b)
        }
    }

    private var decimal: Decimal? {
        switch self {
        case .int(let number): Decimal(number)
        case .double(let number): number.isNaN ? nil : Decimal(number)
        case .decimal(let number): number
        }
    }

    /// An integer against a double without losing the integer's low bits: an integral
    /// double compares as an integer, any other compares as a double (where an
    /// integer beyond 2^53 has no fraction to lose).
    private static func compare(_ a: Int64, _ b: Double) -> ComparisonResult? {
        if b.isNaN { return nil }
        if let exact = Int64(exactly: b) { return PredicateValueComparison.compare(a, exact) }
        return PredicateValueComparison.compare(Double(a), b)
    }

    private static func reversed(_ order: ComparisonResult) -> ComparisonResult {
        switch order {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
