/// The writes of one transaction. `LogStore.commit(_:)` makes them visible together
/// or not at all.
///
/// ```swift
/// var batch = WriteBatch()
/// batch.put(RecordKey(1), value: Array("hello".utf8))
/// batch.delete(RecordKey(2))
/// let sequence = try store.commit(batch)
/// ```
public struct WriteBatch: Sendable {
    enum Operation: Sendable {
        case put(key: RecordKey, value: [UInt8], blobs: [BlobRef], terms: [IndexTerm])
        case delete(key: RecordKey)
    }

    var operations: [Operation] = []

    public init() {}

    /// Writes a new version of `key`.
    public mutating func put(_ key: RecordKey, value: [UInt8], blobs: [BlobRef] = [], terms: [IndexTerm] = []) {
        operations.append(.put(key: key, value: value, blobs: blobs, terms: terms))
    }

    /// Deletes `key` (writes a tombstone).
    public mutating func delete(_ key: RecordKey) {
        operations.append(.delete(key: key))
    }

    /// How many writes the batch holds.
    public var count: Int { operations.count }
    public var isEmpty: Bool { operations.isEmpty }
}

extension WriteBatch {
    /// The batch's writes as records of transaction `sequence`, in batch order.
    func records(sequence: UInt64) -> [Record] {
        operations.map { operation -> Record in
            switch operation {
            case let .put(key, value, blobs, terms):
                return Record(key: key, sequence: sequence, value: value, blobs: blobs, terms: terms)
            case let .delete(key):
                return Record(key: key, sequence: sequence, isTombstone: true)
            }
        }
    }
}
