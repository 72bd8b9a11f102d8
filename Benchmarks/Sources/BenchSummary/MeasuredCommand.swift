import BenchSupport
import Foundation

/// Runs a command-line tool as a child process and measures it as a user would with
/// `/usr/bin/time`: wall time, and the child's peak resident set, with standard input
/// and output redirected to files.
///
/// The peak comes from GNU time (`/usr/bin/time -f %M`) wrapped around the command:
/// `wait4`'s `ru_maxrss` of a child spawned from this process starts at this process's
/// own peak (Linux keeps the high-water mark across `vfork` and `execve`), which here
/// holds a million employees. Without GNU time the peak is left out.
struct MeasuredCommand {
    var executable: String
    var arguments: [String]
    var standardInput: String?
    var standardOutput: String?

    /// Runs the command once; throws unless it exits with status 0.
    func run() throws -> Sample {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { return try spawn(executable, arguments, peakFile: nil) }
        let peakFile = NSTemporaryDirectory() + "/strata-bench-peak-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: peakFile) }
        return try spawn(time, ["-f", "%M", "-o", peakFile, executable] + arguments, peakFile: peakFile)
    }

    private func spawn(_ executable: String, _ arguments: [String], peakFile: String?) throws -> Sample {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let clock = ContinuousClock()
        let started = clock.now
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchError("waitpid for \(executable) failed: \(String(cString: strerror(errno)))") }
        }
        let elapsed = clock.now - started
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw BenchError("\(([executable] + arguments).joined(separator: " ")) failed (wait status \(status))")
        }
        var peak: Int?
        if let peakFile, let text = try? String(contentsOfFile: peakFile, encoding: .utf8),
           let kibibytes = text.split(whereSeparator: \.isNewline).last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            peak = kibibytes * 1024
        }
        return Sample(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
                      result: 0, peakResident: peak, residentRise: nil, isolated: true)
    }

    /// The first executable named `name` on `PATH`, or nil.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
