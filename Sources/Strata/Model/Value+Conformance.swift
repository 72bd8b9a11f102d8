import Foundation

extension Value {
    /// Whether this value can be stored in an attribute of `type`.
    ///
    /// `.null` conforms to every type (whether null is allowed is the attribute's
    /// `isOptional`, not the type's business). Integers must fit the width of
    /// `int16` and `int32`; `float` and `double` take ``double(_:)``; every other type
    /// takes exactly its own case, except `transformable`, which takes the transformer's
    /// bytes as ``binary(_:)``. No conversion is implied: `.int(0)` does not conform
    /// to `.double`.
    ///
    /// ```swift
    /// Value.int(40_000).conforms(to: .int16)  // false
    /// Value.double(0).conforms(to: .double)   // true
    /// ```
    public func conforms(to type: AttributeType) -> Bool {
        switch (self, type) {
        case (.null, _): true
        case (.bool, .bool): true
        case (.int(let number), .int16): Int16(exactly: number) != nil
        case (.int(let number), .int32): Int32(exactly: number) != nil
        case (.int, .int64): true
        case (.double, .float), (.double, .double): true
        case (.decimal, .decimal): true
        case (.string, .string): true
        case (.date, .date): true
        case (.binary, .binary), (.binary, .transformable): true
        case (.uuid, .uuid): true
        case (.url, .url): true
        case (.composite, .composite): true
        default: false
        }
    }

    /// The name of this value's case, for error messages.
    var caseName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .decimal: "decimal"
        case .string: "string"
        case .date: "date"
        case .binary: "binary"
        case .uuid: "uuid"
        case .url: "url"
        case .composite: "composite"
        }
    }

    /// How two values of the same ordered kind (numbers, dates) compare, for checking
    /// that a range's minimum is not above its maximum; `nil` when they do not compare.
    func rangeOrder(comparedTo other: Value) -> ComparisonResult? {
        func order<T: Comparable>(_ lhs: T, _ rhs: T) -> ComparisonResult {
            lhs < rhs ? .orderedAscending : (lhs > rhs ? .orderedDescending : .orderedSame)
        }
        switch (self, other) {
        case (.int(let lhs), .int(let rhs)): return order(lhs, rhs)
        case (.double(let lhs), .double(let rhs)):
            return lhs.isNaN || rhs.isNaN ? nil : order(lhs, rhs)
        case (.decimal(let lhs), .decimal(let rhs)):
            return lhs.isNaN || rhs.isNaN ? nil : order(lhs, rhs)
        case (.date(let lhs), .date(let rhs)): return order(lhs, rhs)
        default: return nil
        }
    }
}
