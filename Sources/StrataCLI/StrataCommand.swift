import ArgumentParser

/// `strata`: the command-line tool over a store directory.
@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Inspect, verify and demonstrate Strata stores.",
        subcommands: [DemoCommand.self, StatsCommand.self, VerifyCommand.self, CompactCommand.self]
    )
}
