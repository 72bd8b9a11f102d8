/// A data block of an index file (FORMAT.md §7.2) repacked for the block cache: the
/// same entries in a fraction of the bytes, still searched by bisection. Never
/// written to disk — it is built from a block that passed its CRC and the checks of
/// §7.2, and lives only in the cache, beside (not instead of) the on-disk format.
///
/// Why: a random lookup reads one data block (4 KiB for about 117 entries of 35 bytes)
/// and one record block. At a million keys the data blocks alone outgrow the default
/// cache, so most lookups would pay a `pread` and a checksum for the index before the
/// one for the record. Entries hold mostly redundancy: keys of a block are dense, a bulk
/// transaction gives them one sequence, and some 60 records share each frame. Packed,
/// an entry is 7–10 bytes and the index of a million keys fits the cache beside the
/// records read.
///
/// ```
/// packed  := count:u16 keyWidth:u8 sequenceWidth:u8 offsetWidth:u8 lengthWidth:u8
///            frameCount:u8 baseKey:u64 baseSequence:u64 (frameOffset:u32 frameLength:u32){frameCount}
///            entry{count}
/// entry   := keyDelta[keyWidth] sequenceDelta[sequenceWidth] frame:u8
///            recordOffset[offsetWidth] recordLength[lengthWidth] tombstone:u8
/// ```
///
/// Widths are 0, 1, 2, 4 or 8 bytes, little-endian, each the least that holds the
/// block's largest value. A block with blob references, more than 255 frames or more
/// than 65,535 entries is not packed (`pack` answers nil): the raw block serves it.
enum PackedIndexBlock {
    static let headerSize = 2 + 4 + 1 + 8 + 8

    static func width(_ maximum: UInt64) -> Int {
        switch maximum {
        case 0: 0
        case ...0xFF: 1
        case ...0xFFFF: 2
        case ...0xFFFF_FFFF: 4
        default: 8
        }
    }

    /// The packed form of a raw data block (its CRC checked), read straight from its
    /// bytes in two passes; nil when the block does not pack (blob references, too
    /// many frames) or breaks a rule of FORMAT.md §7.2 — the caller then decodes it,
    /// which names the damage.
    static func pack(block raw: [UInt8]) -> [UInt8]? {
        raw.withUnsafeBytes { b -> [UInt8]? in
            let end = b.count - 4
            guard end >= 4 else { return nil }
            func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
            func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            let count = Int(u32(0))
            guard count > 0, count <= 0xFFFF, 4 + count * 35 == end else { return nil }
            var frames: [(offset: UInt32, length: UInt32)] = []
            var baseSequence = UInt64.max, maxSequence: UInt64 = 0, maxOffset: UInt32 = 0, maxLength: UInt32 = 0
            var previous: UInt64?
            for i in 0..<count {
                let at = 4 + i * 35
                let key = u64(at), sequence = u64(at + 8), kind = b[at + 16]
                guard kind == 1 || kind == 2, b[at + 33] == 0, b[at + 34] == 0 else { return nil }
                if let previous, key <= previous { return nil }
                previous = key
                let frame = (u32(at + 17), u32(at + 21))
                if frames.last.map({ $0.offset != frame.0 || $0.length != frame.1 }) ?? true,
                   !frames.contains(where: { $0.offset == frame.0 && $0.length == frame.1 }) {
                    guard frames.count < 255 else { return nil }
                    frames.append(frame)
                }
                baseSequence = min(baseSequence, sequence)
                maxSequence = max(maxSequence, sequence)
                maxOffset = max(maxOffset, u32(at + 25))
                maxLength = max(maxLength, u32(at + 29))
            }
            let baseKey = u64(4), lastKey = u64(4 + (count - 1) * 35)
            let widths = (key: width(lastKey - baseKey), sequence: width(maxSequence - baseSequence),
                          offset: width(UInt64(maxOffset)), length: width(UInt64(maxLength)))
            let stride = widths.key + widths.sequence + 1 + widths.offset + widths.length + 1
            // Written straight into the array's storage: appended a byte at a time,
            // packing was most of the first query's work after an open (every block
            // its candidates touched was packed then).
            let size = headerSize + frames.count * 8 + count * stride
            return [UInt8](unsafeUninitializedCapacity: size) { out, initialized in
                guard let base = out.baseAddress else { return }
                let o = UnsafeMutableRawPointer(base)
                var at = 0
                @inline(__always) func put(_ value: UInt64, _ width: Int) {
                    switch width {
                    case 0: break
                    case 1: o.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: at, as: UInt8.self)
                    case 2: o.storeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: at, as: UInt16.self)
                    case 4: o.storeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, toByteOffset: at, as: UInt32.self)
                    default: o.storeBytes(of: value.littleEndian, toByteOffset: at, as: UInt64.self)
                    }
                    at += width
                }
                put(UInt64(count), 2)
                put(UInt64(widths.key), 1)
                put(UInt64(widths.sequence), 1)
                put(UInt64(widths.offset), 1)
                put(UInt64(widths.length), 1)
                put(UInt64(frames.count), 1)
                put(baseKey, 8)
                put(baseSequence, 8)
                for frame in frames {
                    put(UInt64(frame.offset), 4)
                    put(UInt64(frame.length), 4)
                }
                var frame = 0
                for i in 0..<count {
                    let entry = 4 + i * 35
                    let offset = u32(entry + 17), length = u32(entry + 21)
                    if frames[frame].offset != offset || frames[frame].length != length {
                        frame = frames.firstIndex { $0.offset == offset && $0.length == length } ?? 0
                    }
                    put(u64(entry) - baseKey, widths.key)
                    put(u64(entry + 8) - baseSequence, widths.sequence)
                    put(UInt64(frame), 1)
                    put(UInt64(u32(entry + 25)), widths.offset)
                    put(UInt64(u32(entry + 29)), widths.length)
                    put(b[entry + 16] == 2 ? 1 : 0, 1)
                }
                initialized = at
            }
        }
    }

    /// A little-endian unsigned value of `width` bytes (0, 1, 2, 4 or 8) at `at`.
    @inline(__always)
    private static func load(_ raw: UnsafeRawBufferPointer, _ at: Int, _ width: Int) -> UInt64 {
        switch width {
        case 0: return 0
        case 1: return UInt64(raw[at])
        case 2: return UInt64(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
        case 4: return UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
        default: return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
    }

    /// Every entry of a packed block, in key order, as a range walk wants them; nil
    /// when the block's bytes do not hold what its header says (never for a block
    /// `pack` made: the caller then reads the raw block again).
    static func slots(of packed: [UInt8], segmentID: UInt32) -> [IndexSlot]? {
        packed.withUnsafeBytes { raw -> [IndexSlot]? in
            guard raw.count >= headerSize else { return nil }
            let count = Int(load(raw, 0, 2))
            let keyWidth = Int(raw[2]), sequenceWidth = Int(raw[3]), offsetWidth = Int(raw[4]), lengthWidth = Int(raw[5])
            let frameCount = Int(raw[6])
            let baseKey = load(raw, 7, 8), baseSequence = load(raw, 15, 8)
            let entriesAt = headerSize + frameCount * 8
            let stride = keyWidth + sequenceWidth + 1 + offsetWidth + lengthWidth + 1
            guard raw.count >= entriesAt + count * stride else { return nil }
            // While eight bytes can be read at each field, a field is a word loaded and
            // masked to its width: no branch on the width per field. Entries are
            // written straight into the array (appending checked its uniqueness per
            // entry): a range walk unpacks every entry of every block it passes.
            func mask(_ width: Int) -> UInt64 { width >= 8 ? .max : (UInt64(1) << UInt64(8 * width)) &- 1 }
            let keyMask = mask(keyWidth), sequenceMask = mask(sequenceWidth), offsetMask = mask(offsetWidth), lengthMask = mask(lengthWidth)
            let sequenceAt = keyWidth, frameAt = keyWidth + sequenceWidth, offsetAt = frameAt + 1, lengthAt = offsetAt + offsetWidth
            let tombstoneAt = lengthAt + lengthWidth
            @inline(__always) func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            var sound = true
            let slots = [IndexSlot](unsafeUninitializedCapacity: count) { out, initialized in
                var at = entriesAt
                for i in 0..<count {
                    let key: UInt64, sequence: UInt64, recordOffset: UInt64, recordLength: UInt64
                    if at + stride + 8 <= raw.count {
                        key = word(at) & keyMask
                        sequence = word(at + sequenceAt) & sequenceMask
                        recordOffset = word(at + offsetAt) & offsetMask
                        recordLength = word(at + lengthAt) & lengthMask
                    } else {
                        key = load(raw, at, keyWidth)
                        sequence = load(raw, at + sequenceAt, sequenceWidth)
                        recordOffset = load(raw, at + offsetAt, offsetWidth)
                        recordLength = load(raw, at + lengthAt, lengthWidth)
                    }
                    let frame = Int(raw[at + frameAt])
                    guard frame < frameCount else {
                        sound = false
                        initialized = i
                        return
                    }
                    // The frame table lies before the entries: its eight bytes are there.
                    let frameWord = word(headerSize + frame * 8)
                    let location = RecordLocation(segment: segmentID,
                                                  frameOffset: UInt32(truncatingIfNeeded: frameWord),
                                                  frameLength: UInt32(truncatingIfNeeded: frameWord >> 32),
                                                  recordOffset: UInt32(truncatingIfNeeded: recordOffset),
                                                  recordLength: UInt32(truncatingIfNeeded: recordLength))
                    out.initializeElement(at: i, to: IndexSlot(key: RecordKey(baseKey &+ key), sequence: baseSequence &+ sequence,
                                                               isTombstone: raw[at + tombstoneAt] != 0, location: location, blobList: -1))
                    at += stride
                }
                initialized = count
            }
            return sound ? slots : nil
        }
    }

    /// The entry for `key` in a packed block as a slot (a packed block holds no blob
    /// references), nil when the block does not hold it: trivially copied, where an
    /// entry's empty blob list was released with each lookup.
    static func findSlot(_ key: RecordKey, in packed: [UInt8], segmentID: UInt32) -> IndexSlot? {
        packed.withUnsafeBytes { raw -> IndexSlot? in
            guard raw.count >= headerSize else { return nil }
            func load(_ at: Int, _ width: Int) -> UInt64 { Self.load(raw, at, width) }
            let count = Int(load(0, 2))
            let keyWidth = Int(raw[2]), sequenceWidth = Int(raw[3]), offsetWidth = Int(raw[4]), lengthWidth = Int(raw[5])
            let frameCount = Int(raw[6])
            let baseKey = load(7, 8), baseSequence = load(15, 8)
            let framesAt = headerSize
            let entriesAt = framesAt + frameCount * 8
            let stride = keyWidth + sequenceWidth + 1 + offsetWidth + lengthWidth + 1
            guard key.rawValue >= baseKey, raw.count >= entriesAt + count * stride else { return nil }
            let delta = key.rawValue - baseKey
            // Interpolated, as the fence: a block's keys are mostly dense serials.
            let low = IndexFile.firstPosition(count: count, atLeast: delta) { load(entriesAt + $0 * stride, keyWidth) }
            let at = entriesAt + low * stride
            guard low < count, load(at, keyWidth) == delta else { return nil }
            var field = at + keyWidth
            let sequence = baseSequence + load(field, sequenceWidth)
            field += sequenceWidth
            let frame = Int(raw[field])
            field += 1
            guard frame < frameCount else { return nil }
            let recordOffset = UInt32(truncatingIfNeeded: load(field, offsetWidth))
            field += offsetWidth
            let recordLength = UInt32(truncatingIfNeeded: load(field, lengthWidth))
            field += lengthWidth
            let location = RecordLocation(segment: segmentID,
                                          frameOffset: UInt32(truncatingIfNeeded: load(framesAt + frame * 8, 4)),
                                          frameLength: UInt32(truncatingIfNeeded: load(framesAt + frame * 8 + 4, 4)),
                                          recordOffset: recordOffset, recordLength: recordLength)
            return IndexSlot(key: key, sequence: sequence, isTombstone: raw[field] != 0, location: location, blobList: -1)
        }
    }
}
