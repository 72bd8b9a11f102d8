extension LogStore {
    /// How many index entries one visit collects under the state lock before reading
    /// their blocks outside it.
    static let visitPage = 512

    /// Calls `body` with each live record among `keys`, in the order given (absent and
    /// deleted keys are skipped), read in place: no record is copied out of its block,
    /// so a caller that judges many records and keeps few allocates for the few only.
    /// `body` gets the key's position in `keys` and returns false to stop.
    ///
    /// ```swift
    /// try store.visitRecords(keys) { position, view in
    ///     matches += view.value.count > 10 ? 1 : 0
    ///     return true
    /// }
    /// ```
    ///
    /// - Throws: `.corrupt` naming the file and offset for a damaged frame or a record
    ///   that is not the version the index holds; whatever `body` throws.
    package func visitRecords(_ keys: [RecordKey], _ body: (Int, RecordView) throws -> Bool) throws {
        try visitRecords(count: keys.count, { (keys[$0], nil) }, body)
    }

    /// ``visitRecords(_:_:)`` for keys an index read listed with their locations
    /// (``locatedKeys(index:from:through:lowerInclusive:upperInclusive:)``): each is read
    /// where it was found, without a second lookup. A key without a location, or whose
    /// segment a compaction retired since, is looked up as ``visitRecords(_:_:)`` does.
    /// A version replaced since the listing is still read (a fetch racing a writer sees
    /// one of the two, as with any read that lists before it reads).
    package func visitRecords(located: [LocatedKey], _ body: (Int, RecordView) throws -> Bool) throws {
        try visitRecords(count: located.count, { i in
            let l = located[i]
            return (l.key, l.version.map { VisitTarget(key: l.key, sequence: $0.sequence, location: $0.location) })
        }, body)
    }

    /// Hands the newest live version of `key`, read in place, to `body`; false (and
    /// `body` not called) when the key is absent or deleted. The one-key path of a
    /// fault: `get` copies the record's value, blob references and index terms out of
    /// the block (three allocations) only for the caller to decode the value once.
    ///
    /// ```swift
    /// var length = 0
    /// let found = try store.withRecord(key) { view in length = view.value.count }
    /// ```
    ///
    /// - Throws: as ``visitRecords(_:_:)``.
    package func withRecord(_ key: RecordKey, _ body: (RecordView) throws -> Void) throws -> Bool {
        // Not generic over an answer: a generic closure makes the runtime look up its
        // result's metadata on every call, and a fault makes one.
        guard let (entry, file) = try locate(key) else { return false }
        var frame = VisitFrame(readsPrefixes: true)
        _ = try visit(VisitTarget(entry), in: file, frame: &frame) { view in
            try body(view)
            return true
        }
        counters.recordsDecoded.add(frame.visited)
        return true
    }

    private func visitRecords(count: Int, _ item: (Int) -> (RecordKey, VisitTarget?), _ body: (Int, RecordView) throws -> Bool) throws {
        var start = 0
        var frame = VisitFrame(readsPrefixes: true)
        defer { counters.recordsDecoded.add(frame.visited) }
        while start < count {
            let end = min(count, start + Self.visitPage)
            // The entries with their positions, and the open segment files once: a
            // file per entry copied it (a retain and a release per record) twice.
            var files: [UInt32: any StorageFile] = [:]
            let found = try readIndex { s -> [(Int, VisitTarget)] in
                files = s.segmentFiles
                var found: [(Int, VisitTarget)] = []
                found.reserveCapacity(end - start)
                // Whether the segment of the last listed entry is open, asked once per
                // run of entries in one segment.
                var checked: (id: UInt32, open: Bool)?
                for position in start..<end {
                    let (key, listed) = item(position)
                    var target = listed
                    if let t = target {
                        if checked?.id != t.location.segment {
                            checked = (t.location.segment, s.segmentFiles[t.location.segment] != nil)
                        }
                        if checked?.open != true { target = nil }
                    }
                    if target == nil {
                        guard let current = try s.index.slot(key), !current.isTombstone else { continue }
                        _ = try Self.segmentFile(current.location.segment, in: s.segmentFiles, paths: paths)
                        target = VisitTarget(current)
                    }
                    guard let target else { continue }
                    found.append((position, target))
                }
                return found
            }
            guard try visitListed(found.count, { found[$0].1 }, in: files, frame: &frame, { try body(found[$0].0, $1) }) else { return }
            start = end
        }
    }

    /// Calls `body` with each live record of `range` in key order, read in place as by
    /// ``visitRecords(_:_:)``, until it returns false. Keys for which `wants` answers
    /// false are passed over without reading their records; nil (the default) wants
    /// every key without asking a closure per key.
    ///
    /// - Throws: as ``visitRecords(_:_:)``.
    package func visitRecords(in range: Range<RecordKey>, wants: ((RecordKey) -> Bool)? = nil, _ body: (RecordView) throws -> Bool) throws {
        var start = range.lowerBound
        var frame = VisitFrame()
        defer { counters.recordsDecoded.add(frame.visited) }
        while start < range.upperBound {
            let (found, files, next) = try listPage(from: start, to: range.upperBound, wants: wants)
            guard try visitListed(found.count, { found[$0] }, in: files, frame: &frame, { try body($1) }), let next else { return }
            start = next
        }
    }

    /// One page (up to `visitPage` index entries) of the live versions from `start` up
    /// to `end` that `wants` (nil: every key), with the open segment files (taken once
    /// per page, not copied with each entry: a retain and a release per record, twice)
    /// and where the next page starts (nil: the range is done).
    private func listPage(from start: RecordKey, to end: RecordKey, wants: ((RecordKey) -> Bool)?) throws
        -> (found: [VisitTarget], files: [UInt32: any StorageFile], next: RecordKey?) {
        var last: RecordKey?
        var seen = 0
        var files: [UInt32: any StorageFile] = [:]
        let found = try readIndex { s -> [VisitTarget] in
            last = nil
            seen = 0
            files = s.segmentFiles
            // Neighbouring keys mostly lie in one segment: its file is checked
            // once per run of them, not hashed per key.
            var segment: UInt32?
            // Written in place (a page holds at most `visitPage`): appending checked the
            // array's uniqueness through a runtime call per key.
            return try [VisitTarget](unsafeUninitializedCapacity: Self.visitPage) { buffer, initialized in
                var count = 0
                try s.index.mergeSlots(from: start, to: end) { slot, _ in
                    last = slot.key
                    seen += 1
                    if !slot.isTombstone && (wants == nil || wants?(slot.key) == true) {
                        if segment != slot.location.segment {
                            _ = try Self.segmentFile(slot.location.segment, in: files, paths: paths)
                            segment = slot.location.segment
                        }
                        buffer.initializeElement(at: count, to: VisitTarget(slot))
                        count += 1
                    }
                    return seen < Self.visitPage
                }
                initialized = count
            }
        }
        // A short page is the range's end.
        guard seen == Self.visitPage, let last, last.rawValue < UInt64.max else { return (found, files, nil) }
        return (found, files, RecordKey(last.rawValue + 1))
    }

    /// ``visitRecords(in:wants:_:)`` handing over records a block at a time: `body`
    /// gets the views of the live records of the range that lie in one block (in key
    /// order, each checked as a visit checks it), valid during the call only, and
    /// returns false to stop. A scan that judges every record loops over them itself:
    /// a call through closures per record costs about as much as judging it.
    ///
    /// ```swift
    /// var long = 0
    /// try store.visitRecordRuns(in: range) { views in
    ///     for view in views where view.value.count > 100 { long += 1 }
    ///     return true
    /// }
    /// ```
    ///
    /// - Throws: as ``visitRecords(_:_:)``.
    package func visitRecordRuns(in range: Range<RecordKey>, _ body: (UnsafeBufferPointer<RecordView>) throws -> Bool) throws {
        var scanned = 0
        try visitRecordRuns(in: range, scanned: &scanned, body)
    }

    /// ``visitRecordRuns(in:_:)`` for one of several ranges a scan reads in turn:
    /// `scanned` holds the bytes of the frames the scan read before this call and
    /// takes those this call reads, so the block cache sees the whole scan as one
    /// walk (a walk past half the cache's budget reads its later frames without
    /// keeping them). Counted per range, a million-record scan cut into sixteen
    /// filled and emptied the cache again in each, its lock contended by both
    /// threads.
    package func visitRecordRuns(in range: Range<RecordKey>, scanned: inout Int, _ body: (UnsafeBufferPointer<RecordView>) throws -> Bool) throws {
        var start = range.lowerBound
        var frame = VisitFrame()
        frame.bytes = scanned
        defer { scanned = frame.bytes }
        // A block's views, written in place (a page, so a block, holds at most
        // `visitPage`): appending checked an array's uniqueness per record.
        let views = UnsafeMutableBufferPointer<RecordView>.allocate(capacity: Self.visitPage)
        defer { views.deallocate() }
        defer { counters.recordsDecoded.add(frame.visited) }
        while start < range.upperBound {
            let (found, files, next) = try listPage(from: start, to: range.upperBound, wants: nil)
            var i = 0
            while i < found.count {
                let location = found[i].location
                let file = try Self.segmentFile(location.segment, in: files, paths: paths)
                try load(location, in: file, frame: &frame, whole: true)
                let stop = try frame.raw.withUnsafeBytes { raw -> Bool in
                    var count = 0
                    while i < found.count, found[i].location.segment == location.segment, found[i].location.frameOffset == location.frameOffset {
                        views.initializeElement(at: count, to: try Self.view(of: found[i], in: raw, file: file))
                        count += 1
                        i += 1
                    }
                    frame.visited += count
                    return try !body(UnsafeBufferPointer(rebasing: views[0..<count]))
                }
                if stop { return }
            }
            guard let next else { return }
            start = next
        }
    }

    /// Visits `count` entries a page listed, in order, the segment file looked up once
    /// per run of entries in one segment; false when `body` (given the entry's place
    /// in the list) stopped the walk.
    private func visitListed(_ count: Int, _ entry: (Int) -> VisitTarget, in files: [UInt32: any StorageFile],
                             frame: inout VisitFrame, _ body: (Int, RecordView) throws -> Bool) throws -> Bool {
        // A run of entries in one segment is visited with its file bound once: binding
        // it per entry (out of an optional) retained and released it per record.
        var i = 0
        while i < count {
            let segment = entry(i).location.segment
            let file = try Self.segmentFile(segment, in: files, paths: paths)
            repeat {
                let listed = entry(i)
                guard listed.location.segment == segment else { break }
                let position = i
                // A frame the next entries also read is read as far as the last of
                // them ends, once: read to the first one's end and then whole (many
                // frames an index read touches hold two candidates or more) it would
                // be decompressed twice.
                var through = Int(listed.location.recordOffset) + Int(listed.location.recordLength)
                if frame.readsPrefixes, frame.segment != segment || frame.offset != listed.location.frameOffset {
                    var j = i + 1
                    while j < count {
                        let next = entry(j).location
                        guard next.segment == segment, next.frameOffset == listed.location.frameOffset else { break }
                        through = max(through, Int(next.recordOffset) + Int(next.recordLength))
                        j += 1
                    }
                }
                guard try visit(listed, in: file, frame: &frame, through: through, { try body(position, $0) }) else { return false }
                i += 1
            } while i < count
        }
        return true
    }

    /// The block last read by a visit: neighbouring records share it.
    struct VisitFrame {
        var segment: UInt32 = .max
        var offset: UInt32 = .max
        var raw: [UInt8] = []
        /// Whether frames are read only as far as the record wanted (random reads,
        /// index candidates), not whole (a scan, which reads on through each frame).
        var readsPrefixes = false
        /// Whether `raw` may be such a prefix.
        var isPrefix = false
        /// Records visited, counted into the statistics once per walk rather than by
        /// an atomic add per record.
        var visited = 0
        /// Raw bytes of the frames this walk has read (from the cache or the file).
        var bytes = 0
    }

    private static func segmentFile(_ segment: UInt32, in files: [UInt32: any StorageFile], paths: StorePaths) throws -> any StorageFile {
        guard let file = files[segment] else {
            throw StrataError(.corrupt, "index points at segment \(segment), which is not open", path: paths.segment(segment))
        }
        return file
    }

    /// What a visit needs of an index entry: the version it expects and where it lies.
    /// Trivially copied, unlike `IndexEntry` (whose blob list is retained and released
    /// with every copy: a scan listed, copied and dropped each entry several times).
    struct VisitTarget {
        var key: RecordKey
        var sequence: UInt64
        var location: RecordLocation
    }


    /// Reads one record in place and hands it to `body`: the checks of `get` (the
    /// record fills its location, is the version the index holds) without copying it.
    private func visit(_ entry: VisitTarget, in file: any StorageFile, frame: inout VisitFrame, through: Int? = nil,
                       _ body: (RecordView) throws -> Bool) throws -> Bool {
        try load(entry.location, in: file, frame: &frame, whole: false, through: through)
        frame.visited += 1
        return try frame.raw.withUnsafeBytes { raw -> Bool in
            try body(try Self.view(of: entry, in: raw, file: file))
        }
    }

    /// Makes `frame` hold the block `location` lies in, as far as the record — or,
    /// read anew, as far as `through` (the end of later records it will be asked for)
    /// — whole when asked, or when the walk does not read prefixes.
    private func load(_ location: RecordLocation, in file: any StorageFile, frame: inout VisitFrame, whole: Bool, through: Int? = nil) throws {
        let needed = Int(location.recordOffset) + Int(location.recordLength)
        let sameFrame = frame.segment == location.segment && frame.offset == location.frameOffset
        // A frame held as a prefix that ends before this record is read again, whole.
        let pastPrefix = sameFrame && frame.isPrefix && frame.raw.count < needed
        guard !sameFrame || pastPrefix else { return }
        // A walk that has read more than half the cache's budget is a scan the
        // cache cannot hold: its later frames are read without being kept, so it
        // neither pays for inserting and evicting them nor pushes out what
        // random reads use. Walks smaller than that fill the cache.
        let prefixOnly = frame.readsPrefixes && !pastPrefix && !whole
        frame.raw = try readFrame(at: location, in: file, caching: frame.bytes <= blockCache.budget / 2, prefixOnly: prefixOnly,
                                  through: max(needed, through ?? 0))
        frame.isPrefix = prefixOnly
        frame.bytes += frame.raw.count
        frame.segment = location.segment
        frame.offset = location.frameOffset
    }

    /// The view of `entry`'s record in its block's bytes `raw`, checked: it lies
    /// within the block and is the put the index holds. (The file, not its path: the
    /// path is read only to name damage, not copied per record.)
    private static func view(of entry: VisitTarget, in raw: UnsafeRawBufferPointer, file: any StorageFile) throws -> RecordView {
        let location = entry.location
        let start = Int(location.recordOffset), length = Int(location.recordLength)
        guard start + length <= raw.count, length >= RecordCodec.headerSize else {
            throw StrataError(.corrupt, "the index locates a record past the end of its block", path: file.path, offset: Int64(location.frameOffset))
        }
        let kind = raw[start]
        let key = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 1, as: UInt64.self))
        let sequence = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 9, as: UInt64.self))
        let valueLength = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 17, as: UInt32.self)))
        let blobCount = Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: start + 21, as: UInt16.self)))
        guard key == entry.key.rawValue, sequence == entry.sequence, kind == RecordKind.put.rawValue else {
            throw StrataError(.corrupt, "record at this location is \(kind == RecordKind.put.rawValue ? "a put" : "not a put") of #\(key)@\(sequence), the index expected a put of \(entry.key)@\(entry.sequence)",
                              path: file.path, offset: Int64(location.frameOffset))
        }
        let valueStart = start + RecordCodec.headerSize
        let blobsEnd = valueStart + valueLength + blobCount * BlobRef.encodedSize
        guard blobsEnd <= start + length else {
            throw StrataError(.corrupt, "record \(entry.key) announces more bytes than its location holds", path: file.path, offset: Int64(location.frameOffset))
        }
        return RecordView(key: entry.key, sequence: sequence,
                          value: UnsafeRawBufferPointer(rebasing: raw[valueStart..<valueStart + valueLength]),
                          encodedBlobs: UnsafeRawBufferPointer(rebasing: raw[valueStart + valueLength..<blobsEnd]), blobCount: blobCount)
    }
}

extension LogStore.VisitTarget {
    init(_ entry: IndexEntry) {
        self.init(key: entry.key, sequence: entry.sequence, location: entry.location)
    }

    init(_ slot: IndexSlot) {
        self.init(key: slot.key, sequence: slot.sequence, location: slot.location)
    }
}
