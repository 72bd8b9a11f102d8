import ArgumentParser
import Strata

/// `strata verify STORE`: checks every frame, hint file and blob reference.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every frame, index and blob reference; exit 0 when sound, 1 with file, offset and reason when not."
    )

    @Argument(help: "The store directory.")
    var store: String

    func run() throws {
        let log: LogStore
        do {
            var options = LogStoreOptions()
            options.readOnly = true
            options.createIfMissing = false
            log = try LogStore.open(at: store, options: options, logger: CLILogging.logger)
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(2)
        }
        defer { try? log.close() }
        let report = try log.verify()
        print(report)
        if !report.isSound { throw ExitCode(1) }
    }
}
