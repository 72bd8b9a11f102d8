/// A secondary-index entry a record asks the engine to keep: under index number
/// `index`, the byte string `value` maps to the record's key. The object layer uses
/// terms for to-one references (so a to-many inverse is a lookup, not a stored list)
/// and for indexed and unique attributes. Values compare as bytes, so callers encode
/// numbers order-preserving (big-endian, sign bit flipped).
public struct IndexTerm: Hashable, Sendable {
    public var index: UInt32
    public var value: [UInt8]

    public init(index: UInt32, value: [UInt8]) {
        self.index = index
        self.value = value
    }
}
