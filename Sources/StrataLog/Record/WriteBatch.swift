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
    /// The writes as the records they become, their sequence not yet set: a commit
    /// sets it in place (`records(sequence:)`). Kept as operations, each write was
    /// copied into a record at commit, three retains and three releases a record.
    var pending: [Record] = []

    public init() {}

    /// Writes a new version of `key`. The arrays are taken over, not copied: a caller
    /// that made them for this write hands them on without a retain and a release each.
    public mutating func put(_ key: RecordKey, value: consuming [UInt8], blobs: consuming [BlobRef] = [], terms: consuming [IndexTerm] = []) {
        pending.append(Record(key: key, sequence: 0, value: value, blobs: blobs, terms: terms))
    }

    /// Deletes `key` (writes a tombstone).
    public mutating func delete(_ key: RecordKey) {
        pending.append(Record(key: key, sequence: 0, isTombstone: true))
    }

    /// How many writes the batch holds.
    public var count: Int { pending.count }
    public var isEmpty: Bool { pending.isEmpty }
}

extension WriteBatch {
    /// The batch's writes as records of transaction `sequence`, in batch order; the
    /// batch is used up (its records are moved, not copied).
    consuming func records(sequence: UInt64) -> [Record] {
        var records = pending
        pending = []
        for i in records.indices { records[i].sequence = sequence }
        return records
    }
}
