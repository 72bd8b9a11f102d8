import ArgumentParser
import Foundation

/// `strata`: the command-line tool over a store directory.
@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Create, import into, export, inspect, verify and back up Strata stores.",
        subcommands: [
            CreateCommand.self, ImportCommand.self, ExportCommand.self,
            MigrateCommand.self, StatsCommand.self, VerifyCommand.self, CompactCommand.self, BackupCommand.self, CopyCommand.self, HistoryCommand.self, DemoCommand.self,
        ]
    )

    /// Parses and runs a command as ArgumentParser does, except that arguments it
    /// refuses exit with 2, as every other bad argument does (`CommandFailure`), not
    /// with its own 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else { exit(withError: error) }
            let message = fullMessage(for: error)
            if !message.isEmpty { Terminal.writeStandardError(message + "\n") }
            Foundation.exit(2)
        }
    }
}
