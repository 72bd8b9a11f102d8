import Foundation

/// Standard output written a chunk at a time: an export of a million lines makes a
/// few thousand writes, not a million.
final class StandardOutput {
    private var buffer: [UInt8] = []
    private let limit = 1 << 17

    init() {
        buffer.reserveCapacity(limit * 2)
    }

    func writeLine(_ line: Data) throws {
        buffer.append(contentsOf: line)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= limit { try flush() }
    }

    /// Adds bytes that already end in a newline.
    func write(_ bytes: [UInt8]) throws {
        if buffer.isEmpty && bytes.count >= limit { return try writeOut(bytes) }
        buffer.append(contentsOf: bytes)
        if buffer.count >= limit { try flush() }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        try writeOut(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeOut(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = writeStandardOutput(raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw CommandFailure("cannot write standard output: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }
}

/// `write(2)` on standard output (a free function: inside `StandardOutput`, `write`
/// names the method).
private func writeStandardOutput(_ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(STDOUT_FILENO, bytes, count)
}
