import StrataTestSupport

/// The bytes of the workload's values and blobs. A value starts with a header naming
/// the transaction and key that wrote it, so a mismatch says whose bytes are visible;
/// the rest is filler derived from (seed, transaction, key), so content is verified too.
struct ValueHeader: Equatable, Sendable {
    /// "STRX", transaction u64, key u64, total size u32 — little-endian.
    static let size = 24
    static let magic: [UInt8] = Array("STRX".utf8)

    var transaction: UInt64
    var key: UInt64
    var size: Int

    init(transaction: UInt64, key: UInt64, size: Int) {
        self.transaction = transaction
        self.key = key
        self.size = size
    }

    /// Reads the header back from stored bytes; nil when they do not start with one.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= Self.size, Array(bytes[0..<4]) == Self.magic else { return nil }
        func field(_ offset: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
        }
        transaction = field(4, 8)
        key = field(12, 8)
        size = Int(field(20, 4))
    }

    func encoded() -> [UInt8] {
        var out = Self.magic
        out.reserveCapacity(Self.size)
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: transaction >> (8 * UInt64(i)))) }
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: key >> (8 * UInt64(i)))) }
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: UInt64(size) >> (8 * UInt64(i)))) }
        return out
    }
}

extension CrashWorkload {
    /// The value transaction `n` puts under `key`.
    static func value(seed: UInt64, transaction n: UInt64, key: UInt64, size: Int) -> [UInt8] {
        var out = ValueHeader(transaction: n, key: key, size: size).encoded()
        var random = SeededRandom(seed: seed, stream: n, key &+ 1)
        // Word-like filler: compresses, so record blocks take the LZ4 path.
        appendFiller(to: &out, count: size - out.count, compressible: true, random: &random)
        return out
    }

    /// The bytes of the `index`th blob transaction `n` writes for `key`.
    static func blob(seed: UInt64, transaction n: UInt64, key: UInt64, index: Int, spec: BlobSpec) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(spec.size)
        var random = SeededRandom(seed: seed, stream: n, (key << 8) | UInt64(index) | 0x8000_0000)
        appendFiller(to: &out, count: spec.size, compressible: spec.compressible, random: &random)
        return out
    }

    private static let words: [[UInt8]] = ["alpha ", "beta ", "gamma ", "delta ", "segment ", "blob ", "crash "].map { Array($0.utf8) }

    private static func appendFiller(to out: inout [UInt8], count: Int, compressible: Bool, random: inout SeededRandom) {
        let end = out.count + max(0, count)
        while out.count < end {
            let word = random.next()
            if compressible {
                out.append(contentsOf: words[Int(word % UInt64(words.count))].prefix(end - out.count))
            } else {
                // Eight noise bytes per draw: incompressible, and cheap enough that
                // the checker can regenerate every live blob after each round.
                for i in 0..<min(8, end - out.count) { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i)))) }
            }
        }
    }
}
