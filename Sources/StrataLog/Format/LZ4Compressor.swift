import CLZ4

/// An LZ4 compression state and output buffer kept across the blocks of one writer
/// (a commit's frames, a compaction's output): each block is still compressed on its
/// own (FORMAT.md §3.2), but the state is reset cheaply instead of being zeroed for
/// every block, and the output needs no zeroed array of its own. Not for sharing
/// between threads: each writer makes its own.
final class LZ4Compressor {
    private let stream: UnsafeMutablePointer<LZ4_stream_t>
    private var output: UnsafeMutableRawBufferPointer

    init?() {
        guard let stream = LZ4_createStream() else { return nil }
        self.stream = stream
        output = .allocate(byteCount: 0, alignment: 16)
    }

    deinit {
        LZ4_freeStream(stream)
        output.deallocate()
    }

    /// Compresses `input` as one independent block and hands `body` the compressed
    /// bytes (valid during the call); nil, without calling `body`, when compression
    /// would not save at least `minimumSaving` of the input.
    func compress<Result>(_ input: UnsafeRawBufferPointer, minimumSaving: Double = 0.125, _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard input.count > 32, input.count < Int(Int32.max), let source = input.baseAddress else { return nil }
        let bound = Int(LZ4_compressBound(Int32(input.count)))
        if output.count < bound {
            output.deallocate()
            output = .allocate(byteCount: bound, alignment: 16)
        }
        guard let destination = output.baseAddress else { return nil }
        // A reset stream has no dictionary: the block depends on no earlier one.
        LZ4_resetStream_fast(stream)
        let written = LZ4_compress_fast_continue(stream, source.assumingMemoryBound(to: CChar.self), destination.assumingMemoryBound(to: CChar.self),
                                                 Int32(input.count), Int32(bound), 1)
        guard written > 0, Int(written) <= Int(Double(input.count) * (1 - minimumSaving)) else { return nil }
        return body(UnsafeRawBufferPointer(rebasing: output[0..<Int(written)]))
    }
}
