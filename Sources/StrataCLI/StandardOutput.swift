import Foundation

/// Standard output written a chunk at a time: an export of a million lines makes a
/// few thousand writes, not a million.
final class StandardOutput {
    private var buffer = Data()
    private let handle = FileHandle.standardOutput

    func writeLine(_ line: Data) throws {
        buffer.append(line)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 64 << 10 { try flush() }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
