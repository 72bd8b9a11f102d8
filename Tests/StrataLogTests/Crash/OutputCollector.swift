import Foundation
import Synchronization

/// Drains a pipe on its own thread, so the worker never blocks on a full pipe, and
/// lets the test look at the lines so far while the worker runs.
final class OutputCollector: Sendable {
    private let buffer = Mutex<(bytes: [UInt8], finished: Bool)>(([], false))

    /// Starts reading `fd` until end of file (all writers gone: the worker is dead).
    init(reading fd: Int32) {
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                buffer.withLock { $0.bytes.append(contentsOf: chunk[0..<count]) }
            }
            buffer.withLock { $0.finished = true }
        }
    }

    var text: String { buffer.withLock { String(decoding: $0.bytes, as: UTF8.self) } }

    /// Complete lines only: a line the kill cut short is not an acknowledgement.
    var lines: [String] {
        let text = self.text
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast() // empty after a final newline, or a torn last line
        return lines
    }

    /// Waits until a complete line satisfies `predicate`; false on timeout or end of output.
    func wait(timeout: Duration, until predicate: (String) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if lines.contains(where: predicate) { return true }
            if buffer.withLock({ $0.finished }) { return lines.contains(where: predicate) }
            usleep(1_000)
        }
        return false
    }

    /// Waits for end of file after the worker died.
    func waitForEnd(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if buffer.withLock({ $0.finished }) { return true }
            usleep(1_000)
        }
        return false
    }
}
