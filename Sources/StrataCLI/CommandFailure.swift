import ArgumentParser
import Strata

/// A failure a command reports on stderr before it exits non-zero.
///
/// Exit codes, the same for every command: 1 when the command ran and found the data
/// wanting (a bad line, a failed batch, an unsound store), 2 when it could not run
/// (no store at the path, an unreadable or invalid model file, bad arguments).
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }

    /// A usage failure (exit 2).
    static func usage(_ message: String) -> CommandFailure { CommandFailure(message, exitCode: 2) }
}

/// Runs a command's body and turns every error into a message on stderr and an exit
/// code, so no command ends with a Swift error dump.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
        try Terminal.finishStandardOutput()
    } catch {
        throw exitCode(reporting: error)
    }
}

/// ``reportingFailures(_:)`` for an asynchronous body.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
        try Terminal.finishStandardOutput()
    } catch {
        throw exitCode(reporting: error)
    }
}

/// The exit code for `error`, its message written to stderr.
private func exitCode(reporting error: any Error) -> any Error {
    do {
        throw error
    } catch let exit as ExitCode {
        return exit
    } catch let failure as CommandFailure {
        Terminal.error(failure.message)
        return ExitCode(failure.exitCode)
    } catch let error as StrataError {
        Terminal.error(error.description)
        let usage: Set<StrataError.Code> = [.notFound, .invalidModel, .storeLocked, .invalidArgument, .unsupportedFormat, .historyTokenExpired]
        return ExitCode(usage.contains(error.code) ? 2 : 1)
    } catch {
        Terminal.error("\(error)")
        return ExitCode(1)
    }
}
