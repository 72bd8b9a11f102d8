/// Where one record version sits: its segment, the frame that holds it, and its byte
/// range inside the frame's raw (decompressed) payload. Reading it is one `pread` of
/// the frame and at most one block decompression.
struct RecordLocation: Hashable, Sendable {
    var segment: UInt32
    var frameOffset: UInt32
    var frameLength: UInt32
    var recordOffset: UInt32
    var recordLength: UInt32
}
