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
    public func visitRecords(_ keys: [RecordKey], _ body: (Int, RecordView) throws -> Bool) throws {
        var start = 0
        var frame = VisitFrame()
        while start < keys.count {
            let end = min(keys.count, start + Self.visitPage)
            let found = try readIndex { s -> [(Int, IndexEntry, any StorageFile)] in
                var found: [(Int, IndexEntry, any StorageFile)] = []
                found.reserveCapacity(end - start)
                for position in start..<end {
                    guard let entry = try s.index.entry(keys[position]), !entry.isTombstone else { continue }
                    found.append((position, entry, try Self.segmentFile(of: entry, in: s, paths: paths)))
                }
                return found
            }
            for (position, entry, file) in found {
                guard try visit(entry, in: file, frame: &frame, { try body(position, $0) }) else { return }
            }
            start = end
        }
    }

    /// Calls `body` with each live record of `range` in key order, read in place as by
    /// ``visitRecords(_:_:)``, until it returns false. Keys for which `wants` answers
    /// false are passed over without reading their records.
    ///
    /// - Throws: as ``visitRecords(_:_:)``.
    public func visitRecords(in range: Range<RecordKey>, wants: (RecordKey) -> Bool = { _ in true }, _ body: (RecordView) throws -> Bool) throws {
        var start = range.lowerBound
        var frame = VisitFrame()
        while start < range.upperBound {
            var last: RecordKey?
            var seen = 0
            let found = try readIndex { s -> [(IndexEntry, any StorageFile)] in
                var entries: [IndexEntry] = []
                last = nil
                seen = 0
                try s.index.merge(from: start, to: range.upperBound) { entry in
                    last = entry.key
                    seen += 1
                    if !entry.isTombstone && wants(entry.key) { entries.append(entry) }
                    return seen < Self.visitPage
                }
                return try entries.map { ($0, try Self.segmentFile(of: $0, in: s, paths: paths)) }
            }
            for (entry, file) in found {
                guard try visit(entry, in: file, frame: &frame, body) else { return }
            }
            // A short page is the range's end.
            guard seen == Self.visitPage, let last, last.rawValue < UInt64.max else { return }
            start = RecordKey(last.rawValue + 1)
        }
    }

    /// The block last read by a visit: neighbouring records share it.
    struct VisitFrame {
        var segment: UInt32 = .max
        var offset: UInt32 = .max
        var raw: [UInt8] = []
    }

    private static func segmentFile(of entry: IndexEntry, in s: State, paths: StorePaths) throws -> any StorageFile {
        guard let file = s.segmentFiles[entry.location.segment] else {
            throw StrataError(.corrupt, "index points at segment \(entry.location.segment), which is not open", path: paths.segment(entry.location.segment))
        }
        return file
    }

    /// Reads one record in place and hands it to `body`: the checks of `get` (the
    /// record fills its location, is the version the index holds) without copying it.
    private func visit(_ entry: IndexEntry, in file: any StorageFile, frame: inout VisitFrame, _ body: (RecordView) throws -> Bool) throws -> Bool {
        let location = entry.location
        if frame.segment != location.segment || frame.offset != location.frameOffset {
            frame.raw = try readFrame(at: location, in: file)
            frame.segment = location.segment
            frame.offset = location.frameOffset
        }
        counters.recordsDecoded.add(1)
        return try frame.raw.withUnsafeBytes { raw -> Bool in
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
            let view = RecordView(key: entry.key, sequence: sequence,
                                  value: UnsafeRawBufferPointer(rebasing: raw[valueStart..<valueStart + valueLength]),
                                  encodedBlobs: UnsafeRawBufferPointer(rebasing: raw[valueStart + valueLength..<blobsEnd]), blobCount: blobCount)
            return try body(view)
        }
    }
}
