/// Reads a segment's frames in order and groups records into transactions, keeping
/// only transactions whose commit frame is present and consistent (FORMAT.md §4).
///
/// The scanner does not decide what a bad frame means: it stops and reports where.
/// The caller truncates the active segment there, and treats the same thing in a
/// sealed segment as corruption.
struct SegmentScanner {
    struct ScannedRecord {
        var record: Record
        var location: RecordLocation
    }

    /// A record of a block as ``scanHeaders(chunkSize:body:)`` hands it over: its header
    /// and where its bytes lie in the block.
    struct ScannedHeader: ScannedItem {
        var header: RecordCodec.Header
        var location: RecordLocation

        var sequence: UInt64 { header.sequence }

        static func read(_ reader: inout ByteReader) throws -> RecordCodec.Header { try RecordCodec.skim(&reader) }
        init(_ header: RecordCodec.Header, at location: RecordLocation) {
            self.header = header
            self.location = location
        }
    }

    struct Result {
        /// The committed records, in log order.
        var records: [ScannedRecord] = []
        /// The end of the last whole transaction (or of the seal frame).
        var validEnd: Int64
        /// Where scanning stopped early and why; nil when the file ended cleanly.
        var damage: (offset: Int64, reason: String)?
        /// Whether the damage is a frame whose checksum holds but whose content is
        /// wrong (an unknown type, a block that does not decompress or parse, a commit
        /// that does not match its records). No torn write makes one: a crash leaves
        /// short, zero-filled or checksum-failing bytes. Such damage is never a torn
        /// tail, whatever follows it (FORMAT.md §4.2).
        var damageIsDefinite = false
        /// The min and max sequence the seal frame records, when the segment has one.
        var sealRange: (min: UInt64, max: UInt64)?
        /// Whether the segment ends with a seal frame.
        var sealed = false
        var minSequence: UInt64 = .max
        var maxSequence: UInt64 = 0
        /// Bytes of all committed records (for garbage accounting).
        var recordBytes: Int64 = 0
        /// The scan stopped at a transaction holding more records than its
        /// `transactionLimit` (committed or not: its commit frame was not reached),
        /// without handing it over; the rest of the result describes what came before.
        var stoppedAtLargeTransaction = false
    }

    let file: any StorageFile
    let segmentID: UInt32
    let statistics: StatisticsCounters?

    /// Scans from the first frame. `body` sees each committed transaction's records
    /// (so compaction can stream without holding a whole segment); when `collect` is
    /// true they are also gathered into the result.
    ///
    /// With `provisional`, `body` sees each records frame's records as soon as the frame
    /// is read, before the commit frame that makes them count (which is still checked):
    /// a transaction of any size is never held whole. Only a caller that does not trust
    /// what it was given past the result's `validEnd` may ask for it: one that throws
    /// it all away when the result reports damage (a rebuild of a sealed segment's
    /// index, for which any damage is an error), one that keeps none of it (a scan for
    /// where commits end), or one that keeps only records of sequences no transaction
    /// past the last commit frame can have (a past snapshot).
    ///
    /// Without `provisional`, a transaction is held until its commit frame: one of
    /// more than `transactionLimit` records stops the scan there
    /// (`stoppedAtLargeTransaction`), so that the caller never holds one whole.
    ///
    /// `start` is where a transaction begins (a read-only store's refresh goes on from
    /// where its last scan ended); nil: the segment's first frame.
    func scan(collect: Bool = true, provisional: Bool = false, transactionLimit: Int = .max, chunkSize: Int = 1 << 20,
              from start: Int64? = nil, body: ([ScannedRecord]) throws -> Void = { _ in }) throws -> Result {
        var collected: [ScannedRecord] = []
        var result = try scanItems(ScannedRecord.self, provisional: provisional, transactionLimit: transactionLimit, chunkSize: chunkSize, from: start) { records, _ in
            try body(records)
            // Handed over at their commit: without `provisional`, only committed records.
            if collect && !provisional { collected.append(contentsOf: records) }
        }
        result.records = collected
        return result
    }

    /// A provisional scan (see ``scan(collect:provisional:transactionLimit:chunkSize:from:body:)``)
    /// that hands over each records frame as its decompressed block and the headers of
    /// its records, whose bytes lie at their locations' record offsets in the block:
    /// what compaction reads, which copies the bytes of the records it keeps and drops
    /// the rest without decoding either.
    func scanHeaders(chunkSize: Int = 1 << 20, body: ([ScannedHeader], [UInt8]) throws -> Void) throws -> Result {
        try scanItems(ScannedHeader.self, provisional: true, transactionLimit: .max, chunkSize: chunkSize, from: nil, body: body)
    }

    /// The scan, for records read either way: `body` gets the records and, with
    /// `provisional`, the block they were read from (without it, each transaction's
    /// records at its commit, with no block).
    private func scanItems<Item: ScannedItem>(_ item: Item.Type, provisional: Bool, transactionLimit: Int, chunkSize: Int,
                                              from start: Int64?, body: ([Item], [UInt8]) throws -> Void) throws -> Result {
        let fileSize = try file.size()
        var result = Result(validEnd: start ?? Int64(Format.segmentHeaderSize))
        var position = start ?? Int64(Format.segmentHeaderSize)
        var pending: [Item] = []
        var pendingFrames = 0
        // What `provisional` keeps of the records handed over before their commit.
        var handedOver = 0
        var handedOverBytes: Int64 = 0
        var handedOverSequence: UInt64?
        var handedOverMixed = false
        var reader = ChunkedReader(file: file, fileSize: fileSize, chunkSize: chunkSize)

        func stop(_ reason: String, at offset: Int64, definite: Bool = false) -> Result {
            var r = result
            r.damage = (offset, reason)
            r.damageIsDefinite = definite
            return r
        }

        while position < fileSize {
            guard position + Int64(Format.frameHeaderSize) <= fileSize else {
                return stop("torn frame header", at: position)
            }
            let headerBytes = try reader.bytes(at: position, count: Format.frameHeaderSize)
            guard let header = FrameCodec.parseHeader(headerBytes) else { return stop("unreadable frame header", at: position) }
            if header.length == 0 && header.typeByte == 0 && header.checksum == 0 {
                return stop("zero-filled space", at: position)
            }
            guard header.length <= Format.maxFramePayload else {
                return stop("frame length \(header.length) exceeds the limit", at: position)
            }
            let payloadStart = position + Int64(Format.frameHeaderSize)
            guard payloadStart + Int64(header.length) <= fileSize else {
                return stop("torn frame: \(header.length) payload bytes announced, file ends first", at: position)
            }
            let stored = try reader.bytes(at: payloadStart, count: header.length)
            guard FrameCodec.checksum(header: headerBytes, payload: stored) == header.checksum else {
                return stop("frame checksum mismatch", at: position)
            }
            guard let type = FrameType(rawValue: header.typeByte) else {
                return stop("unknown frame type \(header.typeByte)", at: position, definite: true)
            }
            statistics?.framesDecoded.add(1)
            let frameLength = Format.frameHeaderSize + header.length
            guard position + Int64(frameLength) < Int64(UInt32.max) else {
                return stop("frame ends past 4 GiB, beyond what a segment may hold", at: position)
            }
            switch type {
            case .records:
                let raw: [UInt8]
                do {
                    raw = try FrameCodec.rawPayload(flags: header.flags, stored: stored, path: file.path, offset: position)
                } catch {
                    return stop("records block does not decompress", at: position, definite: true)
                }
                var records = ByteReader(raw, path: file.path, baseOffset: position)
                do {
                    let count = Int(try records.u32("record count"))
                    for _ in 0..<count {
                        let start = records.position
                        let read = try Item.read(&records)
                        let location = RecordLocation(
                            segment: segmentID, frameOffset: UInt32(position), frameLength: UInt32(frameLength),
                            recordOffset: UInt32(start), recordLength: UInt32(records.position - start))
                        pending.append(Item(read, at: location))
                    }
                } catch {
                    return stop("records block does not parse", at: position, definite: true)
                }
                // Every version of the format: a block ends with its last counted record.
                // No writer leaves bytes after it, and bytes there mean a length inside
                // a record was damaged (a value read short).
                guard records.isAtEnd else {
                    return stop("\(records.remaining) bytes after the last counted record of a records block", at: position, definite: true)
                }
                pendingFrames += 1
                if !provisional && pending.count > transactionLimit {
                    var r = result
                    r.stoppedAtLargeTransaction = true
                    return r
                }
                if provisional {
                    // Through a buffer pointer: a loop over the array copies each record
                    // (its arrays retained and released) to read two of its fields.
                    pending.withUnsafeBufferPointer { pending in
                        for i in pending.indices {
                            handedOverBytes += Int64(pending[i].location.recordLength)
                            let sequence = pending[i].sequence
                            if handedOverSequence == nil { handedOverSequence = sequence }
                            if handedOverSequence != sequence { handedOverMixed = true }
                        }
                    }
                    handedOver += pending.count
                    try body(pending, raw)
                    pending.removeAll(keepingCapacity: true)
                }
            case .commit:
                var commit = ByteReader(stored)
                guard let sequence = try? commit.u64(), let count = try? commit.u32(), let frames = try? commit.u32(),
                      Int(count) == pending.count + handedOver, Int(frames) == pendingFrames,
                      pending.allSatisfy({ $0.sequence == sequence }),
                      !handedOverMixed, handedOver == 0 || handedOverSequence == sequence
                else {
                    return stop("commit frame does not match the records before it", at: position, definite: true)
                }
                pending.withUnsafeBufferPointer { pending in
                    for i in pending.indices { result.recordBytes += Int64(pending[i].location.recordLength) }
                }
                result.recordBytes += handedOverBytes
                if !pending.isEmpty || handedOver > 0 || count == 0 {
                    result.minSequence = min(result.minSequence, sequence)
                    result.maxSequence = max(result.maxSequence, sequence)
                }
                if !provisional { try body(pending, []) }
                pending.removeAll(keepingCapacity: true)
                pendingFrames = 0
                handedOver = 0
                handedOverBytes = 0
                handedOverSequence = nil
                handedOverMixed = false
                result.validEnd = position + Int64(frameLength)
            case .seal:
                guard pending.isEmpty, handedOver == 0 else { return stop("seal frame inside a transaction", at: position, definite: true) }
                var seal = ByteReader(stored)
                if let min = try? seal.u64(), let max = try? seal.u64() { result.sealRange = (min, max) }
                result.sealed = true
                result.validEnd = position + Int64(frameLength)
                // Nothing is ever appended after a seal (a roll starts a new segment):
                // bytes there are damage, not a torn tail, and may be commits.
                if result.validEnd < fileSize { return stop("bytes after the seal frame", at: result.validEnd, definite: true) }
                return result
            }
            position += Int64(frameLength)
        }
        if !pending.isEmpty || handedOver > 0 { return stop("transaction without a commit frame", at: result.validEnd) }
        return result
    }
}

extension SegmentScanner.ScannedRecord: ScannedItem {
    var sequence: UInt64 { record.sequence }

    static func read(_ reader: inout ByteReader) throws -> Record { try RecordCodec.decode(&reader) }
    init(_ record: Record, at location: RecordLocation) { self.init(record: record, location: location) }
}

/// What a scan reads each record of a block as (a decoded record, or its header).
protocol ScannedItem {
    associatedtype Read
    /// Reads the record at the reader's position, checking it whole.
    static func read(_ reader: inout ByteReader) throws -> Read
    init(_ read: Read, at location: RecordLocation)
    var location: RecordLocation { get }
    var sequence: UInt64 { get }
}

extension SegmentScanner {
    /// How many intact commit frames lie after `offset`: zero or one means a torn tail
    /// (one: pages of the last append reached the disk out of order); more means the
    /// damage is in the middle of the log. Reads the rest of the file a window at a
    /// time (a hostile file can be gigabytes past its damage): a rare path.
    static func intactCommits(in file: any StorageFile, after offset: Int64, chunkSize: Int = 1 << 20) throws -> Int {
        let size = try file.size()
        let commitPayload = 16
        let frameSize = Format.frameHeaderSize + commitPayload
        var count = 0
        // `window` starts at file offset `base`; candidates start at `base + i`.
        var base = offset + 1
        guard base < size else { return 0 }
        var window = try file.readExactly(Int(min(Int64(max(chunkSize, frameSize)), size - base)), at: base)
        var i = 0
        while true {
            if i + frameSize > window.count {
                // Keep the unexamined tail (shorter than a frame) and read on.
                let next = base + Int64(window.count)
                guard next < size else { return count }
                let tail = Array(window[min(i, window.count)...])
                base += Int64(min(i, window.count))
                window = tail + (try file.readExactly(Int(min(Int64(max(chunkSize, frameSize)), size - next)), at: next))
                i = 0
                continue
            }
            // Cheap filter first: length 16, type commit.
            if window[i] == UInt8(commitPayload) && window[i + 1] == 0 && window[i + 2] == 0 && window[i + 3] == 0 && window[i + 8] == FrameType.commit.rawValue {
                let header = Array(window[i..<i + Format.frameHeaderSize])
                let payload = Array(window[i + Format.frameHeaderSize..<i + frameSize])
                if let parsed = FrameCodec.parseHeader(header), FrameCodec.checksum(header: header, payload: payload) == parsed.checksum {
                    count += 1
                    i += frameSize
                    continue
                }
            }
            i += 1
        }
    }
}

/// Sequential reads through a reusable window, so scanning a segment is a few large
/// `pread`s rather than two per frame.
struct ChunkedReader {
    let file: any StorageFile
    let fileSize: Int64
    let chunkSize: Int
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0

    init(file: any StorageFile, fileSize: Int64, chunkSize: Int) {
        self.file = file
        self.fileSize = fileSize
        self.chunkSize = chunkSize
    }

    mutating func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        let windowEnd = windowStart + Int64(window.count)
        if offset >= windowStart && offset + Int64(count) <= windowEnd {
            let start = Int(offset - windowStart)
            return Array(window[start..<start + count])
        }
        if count > chunkSize { return try file.readExactly(count, at: offset) }
        let length = Int(min(Int64(chunkSize), fileSize - offset))
        window = try file.readExactly(length, at: offset)
        windowStart = offset
        return Array(window[0..<count])
    }
}
