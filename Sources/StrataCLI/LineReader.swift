import Foundation

/// Reads a file descriptor line by line in 64 KiB chunks, so a large import never
/// sits in memory whole. Lines come without their `\n` (and without a `\r` before it).
///
/// Each byte is searched for a newline once, however long its line: a line of 200 MiB
/// costs one pass, not one pass per chunk read (which took minutes). A line longer
/// than `maximumLineLength` is an error once that many bytes are buffered, so memory
/// stays at that bound whatever the input holds.
final class LineReader {
    /// The longest line `import` accepts by default: 64 MiB, the most one record can
    /// hold (FORMAT.md §3.2); larger values belong in external-storage blobs.
    static let defaultMaximumLineLength = 64 << 20

    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let maximumLineLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next newline resumes: bytes from `start` up to here
    /// are known to hold none.
    private var searched = 0
    private var atEnd = false
    /// Lines returned so far, to name the line an error is about.
    private var lineNumber = 0
    /// Bytes examined for newlines, for tests that check each is examined once.
    private(set) var bytesSearched = 0

    /// Reads `path`; throws a usage failure when it cannot be opened.
    init(path: String, maximumLineLength: Int = LineReader.defaultMaximumLineLength) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw CommandFailure.usage("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        closesDescriptor = true
        self.maximumLineLength = maximumLineLength
    }

    /// Reads an already open descriptor (standard input), which it does not close.
    init(descriptor: Int32, maximumLineLength: Int = LineReader.defaultMaximumLineLength) {
        self.descriptor = descriptor
        closesDescriptor = false
        self.maximumLineLength = maximumLineLength
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// The next line, or nil at the end of the input.
    ///
    /// - Throws: a `CommandFailure` naming the line when it is longer than
    ///   `maximumLineLength` bytes; a read failure.
    func next() throws -> ArraySlice<UInt8>? {
        while true {
            let from = max(start, searched)
            let newline: Int? = buffer.withUnsafeBufferPointer { all in
                guard from < all.count, let base = all.baseAddress,
                      let found = memchr(base + from, Int32(UInt8(ascii: "\n")), all.count - from) else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            bytesSearched += (newline.map { $0 + 1 } ?? buffer.count) - from
            if let newline {
                try checkLength(newline - start)
                var line = buffer[start..<newline]
                start = newline + 1
                searched = start
                lineNumber += 1
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                return line
            }
            searched = buffer.count
            try checkLength(buffer.count - start)
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                lineNumber += 1
                return line
            }
            try fill()
        }
    }

    private func checkLength(_ length: Int) throws {
        guard length <= maximumLineLength else {
            throw CommandFailure("line \(lineNumber + 1) is longer than \(maximumLineLength) bytes (--max-line-bytes); nothing was imported")
        }
    }

    private func fill() throws {
        // Keep the unread tail only, so the buffer holds one chunk and a partial line.
        if start > 0 {
            buffer.removeSubrange(0..<start)
            searched -= start
            start = 0
        }
        // Read straight into the buffer's tail: no chunk is allocated per read.
        let kept = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.chunkSize))
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + kept, Self.chunkSize) }
        buffer.removeSubrange(kept + max(0, count)..<buffer.count)
        if count < 0 {
            if errno == EINTR { return }
            throw CommandFailure("read failed: \(String(cString: strerror(errno)))")
        }
        if count == 0 { atEnd = true }
    }

    /// Bytes asked of each `read`.
    static let chunkSize = 64 << 10
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
