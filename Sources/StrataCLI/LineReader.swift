import Foundation

/// Reads a file descriptor line by line in 64 KiB chunks, so a large import never
/// sits in memory whole. Lines come without their `\n` (and without a `\r` before it).
final class LineReader {
    private let descriptor: Int32
    private let closesDescriptor: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    /// Reads `path`; throws a usage failure when it cannot be opened.
    init(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw CommandFailure.usage("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        closesDescriptor = true
    }

    /// Reads an already open descriptor (standard input), which it does not close.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        closesDescriptor = false
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// The next line, or nil at the end of the input.
    func next() throws -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[start..<newline]
                start = newline + 1
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            try fill()
        }
    }

    private func fill() throws {
        // Keep the unread tail only, so the buffer holds one chunk and a partial line.
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { return }
            throw CommandFailure("read failed: \(String(cString: strerror(errno)))")
        }
        if count == 0 {
            atEnd = true
        } else {
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

/// A copy of standard input in a temporary file, so that an import can read its
/// input twice (names first, objects second) whatever the input is.
final class InputSpool {
    let path: String
    private let handle: FileHandle

    init() throws {
        path = NSTemporaryDirectory() + "/strata-import-\(UUID().uuidString).jsonl"
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CommandFailure("cannot create a temporary file at \(path) to hold standard input")
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CommandFailure("cannot write the temporary file \(path)")
        }
        self.handle = handle
    }

    private var pending = Data()

    /// Adds a line; writes happen a chunk at a time, not a line at a time.
    func append(_ line: ArraySlice<UInt8>) throws {
        pending.append(contentsOf: line)
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= 64 << 10 { try flush() }
    }

    func finish() throws {
        try flush()
        try handle.close()
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        try handle.write(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
    }

    func remove() {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}
