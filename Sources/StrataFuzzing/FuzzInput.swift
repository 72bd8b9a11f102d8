/// Reads a fuzzer's bytes as a stream of small decisions: structure-aware targets
/// turn each input into edits or model shapes. Past the end, every read is zero, so
/// any input — even an empty one — describes something.
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `0..<bound` (0 when `bound` is 0).
    mutating func below(_ bound: Int) -> Int {
        guard bound > 0 else { return 0 }
        let raw = Int(byte()) << 8 | Int(byte())
        return raw % bound
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func u64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    /// Up to `limit` of the remaining bytes.
    mutating func bytes(upTo limit: Int) -> [UInt8] {
        let count = min(below(limit + 1), bytes.count - min(position, bytes.count))
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        guard position < bytes.count else { return [] }
        defer { position = bytes.count }
        return Array(bytes[position...])
    }
}
