import Foundation
import StrataTestSupport
@testable import StrataCrashWorker

/// One run of the `StrataCrashWorker` executable, built beside the test bundle.
final class WorkerProcess {
    /// What a killed run printed.
    struct Outcome {
        /// The transaction the worker started at (`READY n`), nil if killed before.
        var start: UInt64?
        /// `ACK n` lines, in order.
        var acknowledged: [UInt64]
        /// Lines that are neither (a torn last line is dropped by the collector).
        var unexpected: [String]
        var diedOfSIGKILL: Bool
        var termination: String
        var stderr: String
        /// Every complete line, in order.
        var lines: [String] = []
    }

    private let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    let stdout: OutputCollector
    let stderr: OutputCollector

    convenience init(mode: CrashWorker.Mode, store: String, seed: UInt64) throws {
        try self.init(command: mode.rawValue, store: store, seed: seed)
    }

    /// `StrataCrashWorker command STORE SEED`: for the modes that are no `CrashWorker.Mode`
    /// (`concurrent`), whose lines the caller reads from `Outcome.lines`.
    init(command: String, store: String, seed: UInt64) throws {
        process.executableURL = try Self.executableURL()
        process.arguments = [command, store, String(seed)]
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        stdout = OutputCollector(reading: stdoutPipe.fileHandleForReading.fileDescriptor)
        stderr = OutputCollector(reading: stderrPipe.fileHandleForReading.fileDescriptor)
        try process.run()
    }

    /// SIGKILL: no handler, no flush, no atexit — the closest a test gets to pulling the plug
    /// on the process (the kernel keeps what it was given, so this tests the protocol's
    /// ordering, not fsync itself).
    func killAndCollect() -> Outcome {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        return collect()
    }

    /// Waits for the run to end on its own, then what it printed.
    func collect() -> Outcome {
        process.waitUntilExit()
        // Both write ends are gone with the child, so the readers reach end of file.
        _ = stdout.waitForEnd(timeout: .seconds(10))
        _ = stderr.waitForEnd(timeout: .seconds(10))
        var outcome = Outcome(start: nil, acknowledged: [], unexpected: [],
                              diedOfSIGKILL: process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
                              termination: "\(process.terminationReason == .uncaughtSignal ? "signal" : "exit status") \(process.terminationStatus)",
                              stderr: stderr.text, lines: stdout.lines)
        for line in outcome.lines {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == "ACK", let n = UInt64(parts[1]) {
                outcome.acknowledged.append(n)
            } else if parts.count == 2, parts[0] == "READY", let n = UInt64(parts[1]) {
                outcome.start = n
            } else {
                outcome.unexpected.append(line)
            }
        }
        return outcome
    }

    /// The worker sits in the build products directory beside the test executable
    /// (Linux: `.build/debug/StrataPackageTests.xctest` next to `StrataCrashWorker`;
    /// macOS: the `.xctest` bundle next to it). `STRATA_CRASH_WORKER` overrides.
    static func executableURL() throws -> URL {
        try BuiltProduct.url(named: "StrataCrashWorker", overrideVariable: "STRATA_CRASH_WORKER")
    }
}
