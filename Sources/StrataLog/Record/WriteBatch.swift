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
    /// The position in `pending` of the write whose key the commit's sequence completes
    /// (``put(_:keyedBySequenceAfter:)``), nil when there is none.
    var sequenceKeyed: Int?

    public init() {}

    /// Writes a new version of `key`. The arrays are taken over, not copied: a caller
    /// that made them for this write hands them on without a retain and a release each.
    public mutating func put(_ key: RecordKey, value: consuming [UInt8], blobs: consuming [BlobRef] = [], terms: consuming [IndexTerm] = []) {
        pending.append(Record(key: key, sequence: 0, value: value, blobs: blobs, terms: terms))
    }

    /// Writes `value` under the key `base` plus the transaction's sequence, which only
    /// the commit knows: a record per transaction, in sequence order, that a range walk
    /// lists from any point (the object layer's history entries). One per batch; a
    /// second replaces the first.
    public mutating func put(_ value: consuming [UInt8], keyedBySequenceAfter base: RecordKey) {
        if let sequenceKeyed {
            pending[sequenceKeyed] = Record(key: base, sequence: 0, value: value)
        } else {
            sequenceKeyed = pending.count
            pending.append(Record(key: base, sequence: 0, value: value))
        }
    }

    /// Deletes `key` (writes a tombstone).
    public mutating func delete(_ key: RecordKey) {
        pending.append(Record(key: key, sequence: 0, isTombstone: true))
    }

    /// The writes in batch order, as records of sequence 0 (a delete is a tombstone),
    /// for the object layer's other store types; the write keyed by sequence, if any,
    /// holds its base key (``records(completedWith:)`` completes it).
    package var writes: [Record] { pending }

    /// The position in ``writes`` of the write keyed by the commit's sequence
    /// (``put(_:keyedBySequenceAfter:)``), nil when there is none.
    package var sequenceKeyedWrite: Int? { sequenceKeyed }

    /// How many writes the batch holds.
    public var count: Int { pending.count }
    public var isEmpty: Bool { pending.isEmpty }
}

extension WriteBatch {
    /// The batch's writes as records of transaction `sequence`, in batch order; the
    /// batch is used up (its records are moved, not copied).
    consuming func records(sequence: UInt64) throws -> [Record] {
        var records = pending
        pending = []
        for i in records.indices { records[i].sequence = sequence }
        try completeKey(in: &records, sequence: sequence)
        return records
    }

    /// Gives the write keyed by sequence, if any, its key in `records` (the batch's).
    private func completeKey(in records: inout [Record], sequence: UInt64) throws {
        guard let sequenceKeyed else { return }
        records[sequenceKeyed].key = try Self.key(after: records[sequenceKeyed].key, sequence: sequence)
    }

    /// The key of a write keyed by sequence: `base` plus `sequence`, refused when it
    /// would wrap.
    static func key(after base: RecordKey, sequence: UInt64) throws -> RecordKey {
        let (sum, overflow) = base.rawValue.addingReportingOverflow(sequence)
        guard !overflow else { throw StrataError(.limitExceeded, "sequence \(sequence) does not fit the key range after \(base)") }
        return RecordKey(sum)
    }

    /// The batch's records as a commit of `sequence` writes them, in batch order: the
    /// write keyed by sequence given its key (a copy of the array then; otherwise the
    /// batch's own). Throws `.limitExceeded` when that key would wrap.
    package func records(completedWith sequence: UInt64) throws -> [Record] {
        guard sequenceKeyed != nil else { return pending }
        var records = pending
        try completeKey(in: &records, sequence: sequence)
        return records
    }
}
