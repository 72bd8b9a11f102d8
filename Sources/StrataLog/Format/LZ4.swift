import CLZ4

/// LZ4 block compression (liblz4's block API). The block API records neither length,
/// so callers store the raw length beside the compressed bytes (FORMAT.md §3.2).
enum LZ4 {
    /// Compresses `input`; returns nil when compression would not save at least
    /// `minimumSaving` of the input (incompressible data is stored as it is).
    static func compress(_ input: UnsafeRawBufferPointer, minimumSaving: Double = 0.125) -> [UInt8]? {
        guard input.count > 32, input.count < Int(Int32.max), let source = input.baseAddress else { return nil }
        let bound = Int(LZ4_compressBound(Int32(input.count)))
        let limit = Int(Double(input.count) * (1 - minimumSaving))
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBytes { out -> Int32 in
            guard let destination = out.baseAddress else { return 0 }
            return LZ4_compress_default(
                source.assumingMemoryBound(to: CChar.self),
                destination.assumingMemoryBound(to: CChar.self),
                Int32(input.count), Int32(bound))
        }
        guard written > 0, Int(written) <= limit else { return nil }
        output.removeLast(bound - Int(written))
        return output
    }

    /// The most bytes an LZ4 block of `compressed` bytes can decompress to: a block
    /// grows at most 255-fold (each length byte of 255 adds 255 bytes of match).
    static func maximumRawLength(compressed: Int) -> Int {
        compressed >= Int.max / 256 ? .max : compressed * 255 + 16
    }

    /// Decompresses exactly `rawLength` bytes, or returns nil when the input is damaged.
    /// A `rawLength` that `input` cannot produce is refused before anything is
    /// allocated: a damaged or hostile length field of a few bytes must not make the
    /// reader allocate hundreds of MiB (found by the `segment` fuzz target).
    static func decompress(_ input: UnsafeRawBufferPointer, rawLength: Int) -> [UInt8]? {
        decode(input, rawLength: rawLength, wanted: rawLength) { source, destination, sourceLength in
            LZ4_decompress_safe(source, destination, sourceLength, Int32(rawLength))
        }
    }

    /// The first `prefix` bytes of a block of `rawLength`, decoding no further (a
    /// random read needs its record, not the frame after it: on average half the
    /// work); the whole block when `prefix` reaches its end. Nil when the input is
    /// damaged or ends before `prefix` bytes.
    static func decompress(_ input: UnsafeRawBufferPointer, rawLength: Int, prefix: Int) -> [UInt8]? {
        guard prefix < rawLength else { return decompress(input, rawLength: rawLength) }
        guard prefix >= 0 else { return nil }
        // Room for the whole block: versions of liblz4 before 1.9 could write whole
        // sequences past the target, up to the capacity given.
        return decode(input, rawLength: rawLength, wanted: prefix) { source, destination, sourceLength in
            LZ4_decompress_safe_partial(source, destination, sourceLength, Int32(prefix), Int32(rawLength))
        }
    }

    /// Runs `lz4` (source, destination of `rawLength` bytes, source length) into
    /// uninitialised storage (zeroing it first would add a pass over every byte):
    /// the first `wanted` bytes when it produced exactly that many, else nil.
    private static func decode(_ input: UnsafeRawBufferPointer, rawLength: Int, wanted: Int,
                               _ lz4: (UnsafePointer<CChar>, UnsafeMutablePointer<CChar>, Int32) -> Int32) -> [UInt8]? {
        guard rawLength >= 0, rawLength <= Int(Int32.max), rawLength <= maximumRawLength(compressed: input.count) else { return nil }
        guard let source = input.baseAddress, input.count < Int(Int32.max) else { return wanted == 0 ? [] : nil }
        var produced: Int32 = -1
        let output = [UInt8](unsafeUninitializedCapacity: rawLength) { out, initialized in
            guard let destination = out.baseAddress else {
                produced = wanted == 0 ? 0 : -1
                initialized = 0
                return
            }
            produced = lz4(source.assumingMemoryBound(to: CChar.self),
                           UnsafeMutableRawPointer(destination).assumingMemoryBound(to: CChar.self), Int32(input.count))
            // Only the bytes asked for count as initialised, whatever else was written.
            initialized = min(wanted, max(0, Int(produced)))
        }
        return Int(produced) == wanted ? output : nil
    }
}
