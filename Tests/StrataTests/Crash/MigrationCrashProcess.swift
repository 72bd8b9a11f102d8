import Foundation
import StrataTestSupport
import Synchronization
@testable import StrataCrashWorker

/// One run of `StrataCrashWorker migrate STORE SEED`. The process handling of
/// Tests/StrataLogTests/Crash/WorkerProcess.swift, which lives in another test target.
final class MigrationCrashProcess {
    /// What a run printed and how it ended.
    struct Outcome {
        var lines: [String]
        var diedOfSIGKILL: Bool
        var exitedCleanly: Bool
        var termination: String
        var stderr: String
    }

    private let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    let started: ContinuousClock.Instant
    let stdout: MigrationCrashOutput
    let stderr: MigrationCrashOutput

    /// `command` is `migrate`, or `objects` for the object-layer group-commit crash test.
    init(command: String = "migrate", store: String, seed: UInt64) throws {
        process.executableURL = try Self.executableURL()
        process.arguments = [command, store, String(seed)]
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        stdout = MigrationCrashOutput(reading: stdoutPipe.fileHandleForReading.fileDescriptor)
        stderr = MigrationCrashOutput(reading: stderrPipe.fileHandleForReading.fileDescriptor)
        started = .now
        try process.run()
    }

    /// SIGKILL (no handler, no flush), unless the worker already ended; then the outcome.
    func killAndCollect() -> Outcome {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        return collect()
    }

    /// Waits for the worker to end on its own.
    func waitAndCollect() -> Outcome { collect() }

    private func collect() -> Outcome {
        process.waitUntilExit()
        // Both write ends are gone with the child, so the readers reach end of file.
        _ = stdout.waitForEnd(timeout: .seconds(10))
        _ = stderr.waitForEnd(timeout: .seconds(10))
        let signalled = process.terminationReason == .uncaughtSignal
        return Outcome(lines: stdout.lines,
                       diedOfSIGKILL: signalled && process.terminationStatus == SIGKILL,
                       exitedCleanly: !signalled && process.terminationStatus == 0,
                       termination: "\(signalled ? "signal" : "exit status") \(process.terminationStatus)",
                       stderr: stderr.text)
    }

    /// The worker sits in the build products directory beside the test executable;
    /// `STRATA_CRASH_WORKER` overrides (as WorkerProcess.executableURL).
    static func executableURL() throws -> URL {
        try BuiltProduct.url(named: "StrataCrashWorker", overrideVariable: "STRATA_CRASH_WORKER")
    }
}

/// Drains a pipe on its own thread, so the worker never blocks on a full pipe, and
/// lets the test watch the lines while the worker runs (as OutputCollector).
final class MigrationCrashOutput: Sendable {
    private let buffer = Mutex<(bytes: [UInt8], finished: Bool)>(([], false))

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

    /// True once the worker's end of the pipe is closed.
    var finished: Bool { buffer.withLock { $0.finished } }

    var text: String { buffer.withLock { String(decoding: $0.bytes, as: UTF8.self) } }

    /// Complete lines only: a line the kill cut short was never printed.
    var lines: [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast() // empty after a final newline, or a torn last line
        return lines
    }

    /// Waits until `line` is printed; false on timeout or end of output.
    func wait(for line: String, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if lines.contains(line) { return true }
            if buffer.withLock({ $0.finished }) { return lines.contains(line) }
            usleep(200)
        }
        return false
    }

    func waitForEnd(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if buffer.withLock({ $0.finished }) { return true }
            usleep(1_000)
        }
        return false
    }
}
