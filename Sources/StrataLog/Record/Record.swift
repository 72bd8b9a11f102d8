/// One version of one keyed object: a value (opaque to the engine), the blobs it
/// references and the index terms it contributes — or a tombstone.
public struct Record: Sendable, Equatable {
    public var key: RecordKey
    /// The transaction that wrote this version.
    public var sequence: UInt64
    public var isTombstone: Bool
    public var value: [UInt8]
    public var blobs: [BlobRef]
    public var terms: [IndexTerm]

    public init(key: RecordKey, sequence: UInt64, isTombstone: Bool = false, value: [UInt8] = [], blobs: [BlobRef] = [], terms: [IndexTerm] = []) {
        self.key = key
        self.sequence = sequence
        self.isTombstone = isTombstone
        self.value = value
        self.blobs = blobs
        self.terms = terms
    }
}
