extension LogStore {
    /// The newest version of `key`, or nil when it was never written or is deleted.
    /// One `pread` of the frame that holds it, its checksum verified, at most one
    /// block decompressed.
    ///
    /// - Throws: `.corrupt` naming the file and offset when the frame is damaged.
    public func get(_ key: RecordKey) throws -> Record? {
        guard let (entry, file) = try locate(key) else { return nil }
        let record = try readRecord(at: entry.location, in: file)
        try Self.check(record, is: key, entry, path: file.path)
        return record
    }

    /// The newest versions of several keys, in the order asked (nil where absent or
    /// deleted). Records that share a block are served by one read of it, so fetching
    /// the keys of a range costs about one `pread` per block, not per record.
    public func get(_ keys: [RecordKey]) throws -> [Record?] {
        // One key (a lone fault) takes the one-key path, without sorting by frame.
        if keys.count == 1 { return [try get(keys[0])] }
        return try records(try locate(keys), keys: keys)
    }

    /// The records of the index entries found for the positions of `keys`, each
    /// frame read once however many of them it holds.
    private func records(_ found: [(Int, IndexEntry, any StorageFile)], keys: [RecordKey], caching: Bool = true) throws -> [Record?] {
        var result = [Record?](repeating: nil, count: keys.count)
        let byFrame = found.sorted {
            ($0.1.location.segment, $0.1.location.frameOffset) < ($1.1.location.segment, $1.1.location.frameOffset)
        }
        var cached: (segment: UInt32, offset: UInt32, raw: [UInt8])?
        for (position, entry, file) in byFrame {
            let location = entry.location
            if cached?.segment != location.segment || cached?.offset != location.frameOffset {
                cached = (location.segment, location.frameOffset, try readFrame(at: location, in: file, caching: caching))
            }
            guard let raw = cached?.raw else { continue }
            let record = try Self.decodeRecord(at: location, in: raw, path: file.path)
            counters.recordsDecoded.add(1)
            try Self.check(record, is: keys[position], entry, path: file.path)
            result[position] = record
        }
        return result
    }

    /// Whether `key` has a live (not deleted) version.
    public func contains(_ key: RecordKey) throws -> Bool {
        try readIndexLogging { s in try s.index.slot(key).map { !$0.isTombstone } ?? false }
    }

    /// The sequence number of `key`'s current version, nil when absent or deleted.
    /// Reads no record (index blocks only, usually cached): the object layer uses it
    /// for optimistic locking.
    public func sequence(of key: RecordKey) throws -> UInt64? {
        try readIndexLogging { s in try s.index.slot(key).flatMap { $0.isTombstone ? nil : $0.sequence } }
    }

    /// Live keys, ascending, optionally within `range`. Reads no values.
    public func keys(in range: Range<RecordKey>? = nil) throws -> [RecordKey] {
        try readIndexLogging { try $0.index.keys(in: range, after: nil, limit: .max) }
    }

    /// ``keys(in:)``, each key with where its current version lies, for
    /// ``visitRecords(located:_:)``: a fetch's faults read their records without
    /// looking each key up again in an index file.
    package func locatedKeys(in range: Range<RecordKey>? = nil) throws -> [LocatedKey] {
        try readIndexLogging { try $0.index.locatedKeys(in: range) }
    }

    /// The greatest live key in `range`, nil when it holds none: reads back from the
    /// range's end instead of listing it.
    public func lastKey(in range: Range<RecordKey>) throws -> RecordKey? {
        try readIndexLogging { try $0.index.lastKey(in: range) }
    }

    /// Up to `limit` live keys after `after` (exclusive), ascending: pages through a
    /// range without materialising it.
    public func keys(in range: Range<RecordKey>?, after: RecordKey?, limit: Int) throws -> [RecordKey] {
        try readIndexLogging { try $0.index.keys(in: range, after: after, limit: limit) }
    }

    /// Live keys whose current version carries `term`.
    public func keys(for term: IndexTerm) throws -> [RecordKey] {
        try readIndexLogging { try $0.index.keys(index: term.index, from: term.value, through: term.value, lowerInclusive: true, upperInclusive: true) }
    }

    /// Live keys whose term under `index` lies between the bounds (compared as bytes).
    public func keys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool = true, upperInclusive: Bool = true) throws -> [RecordKey] {
        try readIndexLogging { try $0.index.keys(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive) }
    }

    /// What ``keys(index:from:through:lowerInclusive:upperInclusive:)`` lists, each key
    /// with where its current version lies, for ``visitRecords(located:_:)``.
    package func locatedKeys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool = true, upperInclusive: Bool = true) throws -> [LocatedKey] {
        try readIndexLogging {
            try $0.index.entries(index: index, from: lower, through: upper, lowerInclusive: lowerInclusive, upperInclusive: upperInclusive)
        }
    }

    /// A page of index `index`'s live entries within the bounds (inclusive), in term
    /// order (value, then key) or its reverse, strictly after `after`: about `limit`
    /// terms are read from each index file and the overlay, however large the index.
    /// A fetch sorted by an indexed attribute reads pages until its top rows are
    /// settled.
    ///
    /// ```swift
    /// var page = try store.orderedTermPage(index: 3, descending: true, after: nil, limit: 64)
    /// while true { …; guard let next = page.next else { break }; page = try store.orderedTermPage(index: 3, descending: true, after: next, limit: 64) }
    /// ```
    package func orderedTermPage(index: UInt32, from lower: [UInt8]? = nil, through upper: [UInt8]? = nil, descending: Bool,
                                after: TermEntry?, limit: Int) throws -> OrderedTermPage {
        try readIndexLogging { s in
            let (values, entries, next) = try s.index.orderedTermPage(index: index, from: lower, through: upper, descending: descending, after: after, limit: limit)
            return OrderedTermPage(values: values, entries: entries, next: next, sequence: s.lastSequence)
        }
    }

    /// Up to `limit` entries of index `index` whose term value starts with `prefix`,
    /// ascending by (value, key), strictly after `after`: pages through one prefix of
    /// an index, values included, without reading any record.
    ///
    /// ```swift
    /// var page = store.termEntries(index: 7, prefix: ownerBytes, after: nil, limit: 1024)
    /// while let last = page.last { …; page = store.termEntries(index: 7, prefix: ownerBytes, after: last, limit: 1024) }
    /// ```
    package func termEntries(index: UInt32, prefix: [UInt8], after: TermEntry?, limit: Int) throws -> [TermEntry] {
        try readIndexLogging { try $0.index.termEntries(index: index, prefix: prefix, after: after, limit: limit) }
    }

    /// Calls `body` with the live records of `range` in batches of at most `batchSize`,
    /// in key order, so a caller can stream a whole store in bounded memory.
    ///
    /// Each batch's records come from the one merged walk of the index that lists
    /// them: no key is looked up a second time (filters, index blocks), and records
    /// that share a block are served by one read of it.
    public func scan(_ range: Range<RecordKey>? = nil, batchSize: Int = 1024, _ body: ([Record]) throws -> Void) throws {
        try scan(range, batchSize: batchSize, keepingFrames: true, body)
    }

    /// ``scan(_:batchSize:_:)``, keeping the frames it reads in the block cache only
    /// when `keepingFrames`: a pass that reads every record once (an in-place index
    /// build) would fill the cache with frames it never reads again, and the cache's
    /// share of a migration's budget is not the pass's to spend.
    package func scan(_ range: Range<RecordKey>?, batchSize: Int, keepingFrames: Bool, _ body: ([Record]) throws -> Void) throws {
        var after: RecordKey?
        while let batch = try scanBatch(range, after: &after, batchSize: batchSize, keepingFrames: keepingFrames) {
            if !batch.isEmpty { try body(batch) }
        }
    }

    /// One batch of ``scan(_:batchSize:keepingFrames:_:)``'s walk: the live records of
    /// `range` past `after` (nil at the start; moved to the batch's last key), or nil
    /// once the walk is done.
    ///
    /// For a caller that hands each batch on before reading the next, where a body
    /// cannot: a bulk commit's producer, which the commit calls chunk by chunk.
    package func scanBatch(_ range: Range<RecordKey>?, after: inout RecordKey?, batchSize: Int, keepingFrames: Bool) throws -> [Record]? {
        let found = try readIndex { s -> [(Int, IndexEntry, any StorageFile)] in
            let entries = try s.index.entries(in: range, after: after, limit: max(1, batchSize))
            var found: [(Int, IndexEntry, any StorageFile)] = []
            found.reserveCapacity(entries.count)
            for (position, entry) in entries.enumerated() {
                guard let file = s.segmentFiles[entry.location.segment] else {
                    throw StrataError(.corrupt, "index points at segment \(entry.location.segment), which is not open", path: paths.segment(entry.location.segment))
                }
                found.append((position, entry, file))
            }
            return found
        }
        guard let last = found.last?.1.key else { return nil }
        // Each batch must end past the last: a damaged index file (a fence pointing
        // back) could hand out the same keys again, and the walk would never end.
        if let after, last <= after {
            throw StrataError(.corrupt, "the key index went back from key \(after.rawValue) to \(last.rawValue) while listing keys in order: an index file is damaged",
                              path: paths.index, context: ["key": "\(after.rawValue)"])
        }
        let batch = try records(found, keys: found.map(\.1.key), caching: keepingFrames).compactMap { $0 }
        after = last
        return batch
    }

    /// Reads a blob's bytes by reference, verifying both its checksums.
    ///
    /// - Throws: `.corrupt` naming the blob file and offset when the bytes do not
    ///   match the reference's checksum; `.notFound` for a file the store does not have.
    public func readBlob(_ ref: BlobRef) throws -> [UInt8] {
        let file = try state.withLock { s -> any StorageFile in
            if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
            guard let file = s.blobFiles[ref.file] else {
                throw StrataError(.notFound, "blob file \(ref.file) is not part of this store", path: paths.blob(ref.file))
            }
            return file
        }
        let (bytes, stored) = try BlobReader.read(ref, from: file)
        counters.blobBytesRead.add(stored)
        counters.blobsRead.add(1)
        return bytes
    }

    /// Reads and decodes the record at `location`.
    func readRecord(at location: RecordLocation, in file: any StorageFile) throws -> Record {
        let raw = try readFrame(at: location, in: file, prefixOnly: true)
        let record = try Self.decodeRecord(at: location, in: raw, path: file.path)
        counters.recordsDecoded.add(1)
        return record
    }

    /// One `pread` of a whole frame, checksum verified, payload decompressed — or the
    /// block from the cache when it was read recently.
    ///
    /// With `caching` false a frame read from disk is not kept: a long walk then does
    /// not push out the blocks random reads use (as LevelDB's iterators may skip
    /// filling the cache).
    ///
    /// With `prefixOnly`, a frame read from disk is decompressed only as far as the
    /// record at `location` ends (a random read: on average half the decompression)
    /// and cached apart as a prefix, which serves later reads that end within it. A
    /// read past a cached prefix takes the whole frame: a frame is decompressed at
    /// most twice, however its records are read (in ascending order, each would
    /// otherwise end past the prefix the one before it left).
    ///
    /// `through` (at least the record's end) is how far a prefix must reach: the end
    /// of the last record of this frame the caller will read.
    func readFrame(at location: RecordLocation, in file: any StorageFile, caching: Bool = true, prefixOnly: Bool = false,
                   through: Int? = nil) throws -> [UInt8] {
        let key = BlockCache.Key(file: cacheNamespace | UInt64(location.segment), offset: UInt64(location.frameOffset))
        if let cached = blockCache.get(key) { return cached }
        let needed = max(Int(location.recordOffset) + Int(location.recordLength), through ?? 0)
        let prefixKey = BlockCache.Key(file: key.file, offset: key.offset | Self.framePrefixFlag)
        var prefix = prefixOnly ? needed : .max
        if prefixOnly, let cached = blockCache.get(prefixKey) {
            if cached.count >= needed { return cached }
            prefix = .max
        }
        let (raw, whole) = try readFrameFromDisk(at: location, in: file, prefix: prefix)
        // A prefix stays in the buffer LZ4 wrote, which has room for the whole frame and
        // is counted at that size (a slice of a whole array would not be copied to its
        // own size anyway). Prefixes decoded to their own size would let twice as many
        // in, but more reads would then end past a cached prefix and decode the whole
        // frame, for no gain.
        if caching { blockCache.put(whole ? key : prefixKey, raw) }
        return raw
    }

    /// Marks a frame's decompressed prefix in the cache (frame offsets are u32).
    static let framePrefixFlag: UInt64 = 1 << 63

    private func readFrameFromDisk(at location: RecordLocation, in file: any StorageFile, prefix: Int) throws -> (raw: [UInt8], whole: Bool) {
        let (raw, stored, whole) = try Self.readFrame(at: location, in: file, prefix: prefix)
        counters.segmentBytesRead.add(stored)
        counters.framesDecoded.add(1)
        return (raw, whole)
    }

    /// One `pread` of the frame at `location`, checksum verified, payload
    /// decompressed; also the bytes read. Static, for open, before a store exists.
    static func readFrame(at location: RecordLocation, in file: any StorageFile) throws -> (raw: [UInt8], storedBytes: Int) {
        let (raw, stored, _) = try readFrame(at: location, in: file, prefix: .max)
        return (raw, stored)
    }

    /// ``readFrame(at:in:)`` decompressing the payload only as far as `prefix` bytes
    /// (the whole checksum is still verified); also whether the payload came out whole.
    static func readFrame(at location: RecordLocation, in file: any StorageFile, prefix: Int) throws -> (raw: [UInt8], storedBytes: Int, whole: Bool) {
        // The location may come from a hint file: its length is checked against the
        // frame limit and, when large, the file before a buffer of that size is
        // allocated (a block-sized frame past the end is a short read, damage too; a
        // size call on every read would be a system call per random lookup).
        let end = Int64(location.frameOffset) + Int64(location.frameLength)
        guard location.frameLength >= Format.frameHeaderSize, location.frameLength <= Format.frameHeaderSize + Format.maxFramePayload,
              try location.frameLength <= 1 << 20 || end <= file.size() else {
            throw StrataError(.corrupt, "the index locates a frame of \(location.frameLength) bytes that this segment cannot hold", path: file.path, offset: Int64(location.frameOffset))
        }
        // Read into temporary storage (the stack, for frames of a block or so): the
        // stored bytes are checked and decompressed there, never kept, and an array
        // per frame read was an allocation and a free per candidate of an index read.
        let count = Int(location.frameLength), at = Int64(location.frameOffset)
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 8) { buffer in
            let got = try file.read(into: buffer, at: at)
            guard got == count else {
                throw StrataError(.corrupt, "file ends after \(got) of \(count) bytes", path: file.path, offset: at + Int64(got))
            }
            let bytes = UnsafeRawBufferPointer(buffer)
            guard let header = FrameCodec.parseHeader(bytes), header.length + Format.frameHeaderSize == count else {
                throw StrataError(.corrupt, "frame header does not match the index", path: file.path, offset: at)
            }
            let stored = UnsafeRawBufferPointer(rebasing: bytes[Format.frameHeaderSize...])
            guard FrameCodec.checksum(header: bytes, payload: stored) == header.checksum else {
                throw StrataError(.corrupt, "frame checksum mismatch", path: file.path, offset: at)
            }
            let (raw, whole) = try FrameCodec.rawPayload(flags: header.flags, stored: stored, path: file.path, offset: at, prefix: prefix)
            return (raw, count, whole)
        }
    }

    /// Decodes the record at `location` out of its frame's raw payload. The record
    /// must fill its location exactly: a damaged length inside it (a value read short)
    /// leaves bytes over, which is damage, not a shorter value.
    static func decodeRecord(at location: RecordLocation, in raw: [UInt8], path: String) throws -> Record {
        let start = Int(location.recordOffset), end = Int(location.recordOffset) + Int(location.recordLength)
        guard end <= raw.count else {
            throw StrataError(.corrupt, "the index locates a record past the end of its block", path: path, offset: Int64(location.frameOffset))
        }
        var reader = ByteReader(raw, from: start, to: end, path: path, baseOffset: Int64(location.frameOffset))
        let record = try RecordCodec.decode(&reader)
        guard reader.isAtEnd else {
            throw StrataError(.corrupt, "\(reader.remaining) bytes follow the record inside its location", path: path, offset: Int64(location.frameOffset))
        }
        return record
    }

    /// The record read must be the version the index holds: same key, sequence and kind.
    static func check(_ record: Record, is key: RecordKey, _ entry: IndexEntry, path: String) throws {
        guard record.key == key, record.sequence == entry.sequence, record.isTombstone == entry.isTombstone else {
            throw StrataError(.corrupt, "record at this location is \(record.isTombstone ? "a tombstone" : "a put") of \(record.key)@\(record.sequence), the index expected \(entry.isTombstone ? "a tombstone" : "a put") of \(key)@\(entry.sequence)",
                              path: path, offset: Int64(entry.location.frameOffset))
        }
    }
}

extension LogStore {
    /// The current live versions of `keys` (position in `keys`, entry, the segment file
    /// it points into). The overlay and a snapshot of the sealed index files' list are
    /// taken under the state lock; the files themselves — blocks read from disk through
    /// the cache — are probed after it is released, so concurrent readers do not queue
    /// behind one another's `pread`s (a file's handle lives while a reference does).
    /// The answer is the index as it was when the lock was held. When a compaction
    /// retired a segment a found version points into before its file could be looked
    /// up, the lookup runs again on the new list; a damaged index file is rebuilt.
    func locate(_ key: RecordKey) throws -> (IndexEntry, any StorageFile)? {
        // `locate(_ keys:)` for one key, without the arrays a batch needs: the path of
        // every random read (fetch by id, a fault).
        try repairingIndex {
            while true {
                let (fromOverlay, files) = try state.withLock { s -> (IndexEntry?, [IndexFile]) in
                    if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                    return (s.index.overlay.entry(key), s.index.files)
                }
                guard let entry = try fromOverlay ?? StoreIndex.sealedEntry(key, in: files), !entry.isTombstone else { return nil }
                let file = try state.withLock { s -> (any StorageFile)? in
                    if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                    return try segmentFile(of: entry, in: s, listed: files)
                }
                if let file { return (entry, file) }
            }
        }
    }

    func locate(_ keys: [RecordKey]) throws -> [(Int, IndexEntry, any StorageFile)] {
        try repairingIndex {
            while true {
                let (fromOverlay, files) = try state.withLock { s -> ([IndexEntry?], [IndexFile]) in
                    if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                    return (keys.map { s.index.overlay.entry($0) }, s.index.files)
                }
                var entries = fromOverlay
                // A memo per file: each file's fence is read once for the batch.
                var memos = IndexFile.LookupMemo.perFile(files.count)
                for i in keys.indices where entries[i] == nil {
                    entries[i] = try StoreIndex.sealedEntry(keys[i], in: files, memos: &memos)
                }
                let resolved = try state.withLock { s -> [(Int, IndexEntry, any StorageFile)]? in
                    if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                    var found: [(Int, IndexEntry, any StorageFile)] = []
                    found.reserveCapacity(keys.count)
                    for (position, entry) in entries.enumerated() {
                        guard let entry, !entry.isTombstone else { continue }
                        guard let file = try segmentFile(of: entry, in: s, listed: files) else { return nil }
                        found.append((position, entry, file))
                    }
                    return found
                }
                if let resolved { return resolved }
            }
        }
    }

    /// The open segment file a located version lies in; nil when a compaction retired
    /// the segment after `listed` (the index files the lookup read) was taken, so that
    /// the lookup runs again on the new list.
    ///
    /// - Throws: `.corrupt` when the segment is missing from an unchanged list.
    private func segmentFile(of entry: IndexEntry, in s: State, listed: [IndexFile]) throws -> (any StorageFile)? {
        if let file = s.segmentFiles[entry.location.segment] { return file }
        let current = s.index.files
        if current.count != listed.count || zip(current, listed).contains(where: { $0 !== $1 }) { return nil }
        throw StrataError(.corrupt, "index points at segment \(entry.location.segment), which is not open", path: paths.segment(entry.location.segment))
    }
}
