import Foundation

/// How predicates and sort keys compare `Value`s: numbers across int, double and
/// decimal, dates by time, strings after `[c]`/`[d]` folding.
enum PredicateValueComparison {
    /// Equality as `==` in a predicate: `nil == nil`, a number equals the same number
    /// of another case, values of unrelated kinds are unequal (never an error).
    static func equal(_ lhs: PredicateOperand, _ rhs: PredicateOperand, options: StringComparisonOptions) -> Bool {
        guard let left = lhs.value, let right = rhs.value else {
            // Objects are equal when they are the same object; an object is not nil.
            if case .object(let a?) = lhs, case .object(let b?) = rhs { return a == b }
            return false
        }
        switch (left, right) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let a), .string(let b)): return fold(a, options) == fold(b, options)
        default:
            if let a = PredicateNumber(left), let b = PredicateNumber(right) { return a.compare(to: b) == .orderedSame }
            return left == right
        }
    }

    /// The order of two operands for `<`, `<=`, `>`, `>=` and `BETWEEN`; `nil` when
    /// either is nil (the comparison is then false).
    ///
    /// - Throws: `StrataError` `.typeMismatch` when the values are of kinds that do
    ///   not order against each other (a string and a number).
    static func order(
        _ lhs: PredicateOperand, _ rhs: PredicateOperand, options: StringComparisonOptions, context: PredicateComparison
    ) throws -> ComparisonResult? {
        guard let left = lhs.value, let right = rhs.value else {
            throw mismatch("a related object cannot be ordered", context)
        }
        if left.isNull || right.isNull { return nil }
        if let order = orderOfSameKind(left, right, options: options) { return order }
        if case .double(let a) = left, a.isNaN { return nil }
        if case .double(let b) = right, b.isNaN { return nil }
        throw mismatch("cannot order \(kind(left)) against \(kind(right))", context)
    }

    /// The order of two non-null values of comparable kinds, `nil` otherwise.
    static func orderOfSameKind(_ left: Value, _ right: Value, options: StringComparisonOptions) -> ComparisonResult? {
        switch (left, right) {
        // Two integers (most sort keys) without the conversion to a number kind.
        case (.int(let a), .int(let b)): return compare(a, b)
        case (.string(let a), .string(let b)): return compare(fold(a, options), fold(b, options))
        case (.date(let a), .date(let b)): return compare(a, b)
        case (.uuid(let a), .uuid(let b)): return compare(a.uuidString, b.uuidString)
        case (.url(let a), .url(let b)): return compare(a.absoluteString, b.absoluteString)
        case (.binary(let a), .binary(let b)), (.composite(let a), .composite(let b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        default:
            guard let a = PredicateNumber(left), let b = PredicateNumber(right) else { return nil }
            return a.compare(to: b)
        }
    }

    static func compare<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }

    /// A string folded as `[c]` and `[d]` ask.
    static func fold(_ text: String, _ options: StringComparisonOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? text : text.folding(options: folding, locale: nil)
    }

    static func kind(_ value: Value) -> String {
        switch value {
        case .null: "nil"
        case .bool: "a bool"
        case .int, .double, .decimal: "a number"
        case .string: "a string"
        case .date: "a date"
        case .binary: "binary data"
        case .uuid: "a UUID"
        case .url: "a URL"
        case .composite: "a composite"
        }
    }

    private static func mismatch(_ reason: String, _ comparison: PredicateComparison) -> StrataError {
        var context = ["predicate": comparison.description]
        if case .keyPath(let path) = comparison.lhs { context["keyPath"] = path }
        return StrataError(.typeMismatch, "In '\(comparison)': \(reason)", context: context)
    }
}
