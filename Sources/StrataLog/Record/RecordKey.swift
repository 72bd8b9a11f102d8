/// The key of a stored object: 64 bits, ordered. The object layer puts an entity tag
/// in the high bits, so that an entity's objects form one key range.
public struct RecordKey: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "#\(rawValue)" }
}
