import Foundation

/// A value of an attribute as the object layer holds it, independent of how it is
/// stored. Integers of every width are `int`, `Float` and `Double` are `double`.
///
/// `Value` is what predicates compare, what validation checks, and what the record
/// codec writes; typed accessors on `ManagedObject` convert to Swift types.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case binary(Data)
    case uuid(UUID)
    case url(URL)
    /// A Codable composite (a struct such as an ingredients list), held as its JSON encoding.
    case composite(Data)

    /// Whether this is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
