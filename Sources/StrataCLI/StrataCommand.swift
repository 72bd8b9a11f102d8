import ArgumentParser

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
}
