import ArgumentParser
import Strata

/// `strata compact STORE [--force]`: rewrites segments with garbage and collects blob garbage.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "compact", abstract: "Rewrite segments with garbage and reclaim unreferenced blob bytes.")

    @Argument(help: "The store directory.")
    var store: String

    @Flag(help: "Compact every sealed segment and blob file with any garbage.")
    var force = false

    func run() throws {
        var options = LogStoreOptions()
        options.createIfMissing = false
        do {
            let log = try LogStore.open(at: store, options: options, logger: CLILogging.logger)
            defer { try? log.close() }
            print(try log.compact(force: force))
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(2)
        }
    }
}
