/// The bytes of one file of an `InMemoryFileSystem`: what the program sees now, and what
/// the last fsync made durable (what a power loss would leave).
///
/// Logs are append-only, so the durable bytes are almost always a prefix of the current
/// ones. Storing them as a length keeps `sync()` O(1) and an append O(appended bytes);
/// copying the array on every sync would make a log of n commits cost O(n²). Only a
/// write or truncate that reaches into the durable prefix takes a snapshot of it, once
/// per sync.
struct InMemoryFileContents: Sendable {
    /// The bytes as the program sees them.
    private(set) var current: [UInt8] = []
    /// The length of the durable prefix of `current`, when `snapshot` is nil.
    private var durableLength = 0
    /// The durable bytes, when a change since the last sync touched the durable prefix.
    private var snapshot: [UInt8]?

    init() {}

    /// The bytes a crash now would leave.
    var durable: [UInt8] {
        snapshot ?? Array(current.prefix(durableLength))
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        let end = offset + bytes.count
        if offset < durableLength { preserveDurablePrefix() }
        if current.count < end {
            current.append(contentsOf: repeatElement(0, count: end - current.count))
        }
        current.replaceSubrange(offset..<end, with: bytes)
    }

    mutating func truncate(to size: Int) {
        if size < current.count {
            if size < durableLength { preserveDurablePrefix() }
            current.removeSubrange(size...)
        } else if size > current.count {
            current.append(contentsOf: repeatElement(0, count: size - current.count))
        }
    }

    /// fsync: everything current becomes durable.
    mutating func sync() {
        snapshot = nil
        durableLength = current.count
    }

    /// Replaces the bytes, current and durable at once (a test editing the "disk").
    mutating func replace(with bytes: [UInt8]) {
        current = bytes
        sync()
    }

    /// Power loss: back to the durable bytes, plus up to `unsyncedBytes` of what was
    /// written past their end (a torn append that partly reached the disk).
    mutating func crash(keepingUnsyncedBytes unsyncedBytes: Int) {
        let base = snapshot ?? Array(current.prefix(durableLength))
        let keep = max(0, min(current.count - base.count, unsyncedBytes))
        if snapshot == nil {
            current.removeSubrange((base.count + keep)...)
        } else if keep > 0 {
            current = base + current[base.count..<(base.count + keep)]
        } else {
            current = base
        }
        sync()
    }

    private mutating func preserveDurablePrefix() {
        if snapshot == nil { snapshot = Array(current.prefix(durableLength)) }
    }
}
