/// One live record read in place, inside the block that holds it: what
/// `LogStore.visitRecords` hands a caller that judges many records and keeps few (a
/// query), so that judging a record allocates nothing. The bytes are valid only
/// during the call that receives the view; `record()` copies them out.
///
/// ```swift
/// try store.visitRecords(keys) { position, view in
///     if view.value.first == 1 { kept.append(try view.record()) }
///     return true
/// }
/// ```
package struct RecordView {
    /// The record's key.
    package let key: RecordKey
    /// The transaction that wrote this version.
    package let sequence: UInt64
    /// The value's bytes (FORMAT.md §3.3), valid during the call only.
    package let value: UnsafeRawBufferPointer
    private let blobSource: BlobSource

    /// Pointers only, like `value`: a view is copied and dropped once per record a
    /// scan judges, and an owned array here made every drop a call that checked it.
    private enum BlobSource {
        /// Encoded references (FORMAT.md §3.3), `count` of them.
        case encoded(UnsafeRawBufferPointer, count: Int)
        case decoded(UnsafeBufferPointer<BlobRef>)
    }

    /// A view of encoded blob references, as they follow the value in a block.
    init(key: RecordKey, sequence: UInt64, value: UnsafeRawBufferPointer, encodedBlobs: UnsafeRawBufferPointer, blobCount: Int) {
        self.key = key
        self.sequence = sequence
        self.value = value
        self.blobSource = .encoded(encodedBlobs, count: blobCount)
    }

    /// A view of a record already decoded (store types without blocks); `blobs`, like
    /// `value`, must stay valid while the view is used.
    ///
    /// ```swift
    /// try record.value.withUnsafeBytes { value in
    ///     try record.blobs.withUnsafeBufferPointer { blobs in
    ///         try body(RecordView(key: record.key, sequence: record.sequence, value: value, blobs: blobs))
    ///     }
    /// }
    /// ```
    package init(key: RecordKey, sequence: UInt64, value: UnsafeRawBufferPointer, blobs: UnsafeBufferPointer<BlobRef>) {
        self.key = key
        self.sequence = sequence
        self.value = value
        self.blobSource = .decoded(blobs)
    }

    /// How many blob references the record carries.
    package var blobCount: Int {
        switch blobSource {
        case .encoded(_, let count): count
        case .decoded(let blobs): blobs.count
        }
    }

    /// The record's blob references, decoded.
    ///
    /// - Throws: `.corrupt` for a reference past any blob file (FORMAT.md §5.3).
    package func blobs() throws -> [BlobRef] {
        switch blobSource {
        case .decoded(let blobs):
            return Array(blobs)
        case .encoded(_, let count):
            var blobs: [BlobRef] = []
            blobs.reserveCapacity(count)
            for i in 0..<count { blobs.append(try blob(at: i)) }
            return blobs
        }
    }

    /// The record's blob reference `index` (below `blobCount`), decoded alone: a
    /// record that names one blob needs no array of them (an allocation and a free per
    /// record a fetch decodes).
    ///
    /// - Throws: as ``blobs()``, for that reference.
    package func blob(at index: Int) throws -> BlobRef {
        switch blobSource {
        case .decoded(let blobs):
            return blobs[index]
        case .encoded(let bytes, _):
            let base = index * BlobRef.encodedSize
            let ref = BlobRef(file: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: base, as: UInt32.self)),
                              offset: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: base + 4, as: UInt64.self)),
                              length: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: base + 12, as: UInt64.self)),
                              checksum: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: base + 20, as: UInt32.self)))
            guard ref.offset <= Format.maxBlobOffset, ref.length <= Format.maxBlobLength else {
                throw StrataError(.corrupt, "record \(key) references a blob past any blob file (offset \(ref.offset), length \(ref.length))")
            }
            return ref
        }
    }

    /// The record copied out of its block (its value and blobs; terms are not kept).
    ///
    /// - Throws: as ``blobs()``.
    package func record() throws -> Record {
        Record(key: key, sequence: sequence, value: Array(value), blobs: try blobs())
    }

    /// Makes `record` a copy of this record, in the storage `record` already has when
    /// it holds it alone: a top-k that replaces its worst row with a better one copies
    /// the new record's bytes over the old one's, where `record()` allocated an array
    /// per row entering and freed one per row leaving. `record` is unchanged when the
    /// blob references cannot be read.
    package func copy(into record: inout Record) throws {
        let blobs = blobCount == 0 ? [] : try self.blobs()
        record.key = key
        record.sequence = sequence
        record.isTombstone = false
        record.value.removeAll(keepingCapacity: true)
        record.value.append(contentsOf: value)
        record.blobs = blobs
        record.terms.removeAll()
    }
}
