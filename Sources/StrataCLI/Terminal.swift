import Foundation

/// Output helpers: a progress bar on a terminal, plain lines otherwise.
enum Terminal {
    static let isInteractive = isatty(STDERR_FILENO) != 0

    static func progress(_ label: String, done: Int, total: Int) {
        guard isInteractive, total > 0 else { return }
        let width = 30
        let filled = min(width, done * width / total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        writeStandardError("\r\(label) [\(bar)] \(done)/\(total)")
        if done >= total { writeStandardError("\n") }
    }

    static func error(_ message: String) {
        writeStandardError("strata: \(message)\n")
    }

    /// Something the user should know that is not a failure, on stderr.
    static func note(_ message: String) {
        writeStandardError("strata: note: \(message)\n")
    }

    /// Writes to stderr, ignoring a failure: a command run with stderr closed or on a
    /// full disk (a cron job, a daemon) still ends with its own exit code. (Foundation's
    /// `FileHandle.write(_:)` traps when the write fails.)
    static func writeStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(STDERR_FILENO, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Flushes what `print` buffered for standard output, and throws when any of it
    /// could not be written (a full disk): a command whose output was lost did not
    /// succeed. (A closed pipe ends the process with SIGPIPE before this.)
    static func finishStandardOutput() throws {
        errno = 0
        // Every C stream flushed (`stdout` itself, a mutable C global, cannot be named in
        // Swift 6): on a full disk the last flush fails as the earlier writes did.
        if fflush(nil) != 0 {
            let reason = errno == 0 ? "write error" : String(cString: strerror(errno))
            throw CommandFailure("cannot write standard output: \(reason)")
        }
    }

    /// Peak resident memory of this process so far (VmHWM), in bytes.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return digits * 1024
        }
        return 0
    }

    /// Current resident memory of this process (VmRSS), in bytes.
    static func currentResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }

    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    static func seconds(_ duration: Duration) -> String {
        let (s, attoseconds) = duration.components
        return String(format: "%.2f s", Double(s) + Double(attoseconds) / 1e18)
    }

    /// The total size of the files under a directory.
    static func directoryBytes(_ path: String) -> Int64 {
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total: Int64 = 0
        for case let name as String in enumerator {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
            if attributes?[.type] as? FileAttributeType == .typeRegular {
                total += (attributes?[.size] as? Int64) ?? 0
            }
        }
        return total
    }
}
