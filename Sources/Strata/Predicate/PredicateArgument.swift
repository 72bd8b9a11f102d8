import Foundation

/// A Swift value that can stand in a predicate: a `%@` argument of a format string,
/// a `$variable` binding, or the right side of a builder comparison.
///
/// `Value` and the Swift types it holds conform (`String`, the integers, `Double`,
/// `Float`, `Bool`, `Decimal`, `Date`, `Data`, `UUID`, `URL`), as do arrays of them
/// (a list for `IN` and `BETWEEN`) and optionals (`nil` is `NULL`).
///
/// ```swift
/// try Predicate(format: "%K IN %@", "age", [25, 30])
/// try predicate.withSubstitutionVariables(["minimum": 18, "names": ["Ann", "Bo"]])
/// ```
public protocol PredicateArgument {
    /// The expression this value stands for: a constant, or a list of constants.
    var predicateExpression: PredicateExpression { get }
}

extension Value: PredicateArgument {
    /// The value as a constant.
    public var predicateExpression: PredicateExpression { .constant(self) }
}

extension PredicateExpression: PredicateArgument {
    /// The expression itself, so that a builder can compare with a key path or list.
    public var predicateExpression: PredicateExpression { self }
}

extension PredicateArgument where Self: StringProtocol {
    /// `.constant(.string(String(self)))`.
    public var predicateExpression: PredicateExpression { .constant(.string(String(self))) }
}

extension String: PredicateArgument {}

extension Substring: PredicateArgument {}

extension Int: PredicateArgument {
    /// `.constant(.int(Int64(self)))`.
    public var predicateExpression: PredicateExpression { .constant(.int(Int64(self))) }
}

extension Int64: PredicateArgument {
    /// `.constant(.int(self))`.
    public var predicateExpression: PredicateExpression { .constant(.int(self)) }
}

extension Int32: PredicateArgument {
    /// `.constant(.int(Int64(self)))`.
    public var predicateExpression: PredicateExpression { .constant(.int(Int64(self))) }
}

extension Int16: PredicateArgument {
    /// `.constant(.int(Int64(self)))`.
    public var predicateExpression: PredicateExpression { .constant(.int(Int64(self))) }
}

extension PredicateArgument where Self: BinaryFloatingPoint {
    /// `.constant(.double(Double(self)))`.
    public var predicateExpression: PredicateExpression { .constant(.double(Double(self))) }
}

extension Double: PredicateArgument {}

extension Float: PredicateArgument {}

extension Bool: PredicateArgument {
    /// `.constant(.bool(self))`.
    public var predicateExpression: PredicateExpression { .constant(.bool(self)) }
}

extension Decimal: PredicateArgument {
    /// `.constant(.decimal(self))`.
    public var predicateExpression: PredicateExpression { .constant(.decimal(self)) }
}

extension Date: PredicateArgument {
    /// `.constant(.date(self))`.
    public var predicateExpression: PredicateExpression { .constant(.date(self)) }
}

extension Data: PredicateArgument {
    /// `.constant(.binary(self))`.
    public var predicateExpression: PredicateExpression { .constant(.binary(self)) }
}

extension UUID: PredicateArgument {
    /// `.constant(.uuid(self))`.
    public var predicateExpression: PredicateExpression { .constant(.uuid(self)) }
}

extension URL: PredicateArgument {
    /// `.constant(.url(self))`.
    public var predicateExpression: PredicateExpression { .constant(.url(self)) }
}

extension ObjectID: PredicateArgument {
    /// `.object(self)`: compared by identity with a relationship's destination.
    public var predicateExpression: PredicateExpression { .object(self) }
}

extension Array: PredicateArgument where Element: PredicateArgument {
    /// A list of the elements' expressions, for `IN` and `BETWEEN`.
    public var predicateExpression: PredicateExpression { .list(map(\.predicateExpression)) }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    /// The wrapped value's expression, or `NULL`.
    public var predicateExpression: PredicateExpression {
        switch self {
        case .some(let wrapped): wrapped.predicateExpression
        case .none: .constant(.null)
        }
    }
}
