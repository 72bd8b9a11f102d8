import ArgumentParser

/// `strata`: the command-line tool over a store directory.
@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Create, import into, export, inspect and verify Strata stores.",
        subcommands: [
            CreateCommand.self, ImportCommand.self, ExportCommand.self,
            MigrateCommand.self, StatsCommand.self, VerifyCommand.self, CompactCommand.self, DemoCommand.self,
        ]
    )
}
