import ArgumentParser
import Hummingbird
import Logging
import ServiceLifecycle
import TodosApp

/// `Todos --engine strata|sqlite --data PATH [--store LOCATION] [--hostname 127.0.0.1]
/// [--port 8080] [--backup-dir DIR] [--max-pending-writes N] [--shutdown-timeout 30]
/// [--log-level info]`
///
/// Serves until SIGTERM or SIGINT, then drains the requests in flight, closes the
/// store and exits 0. Requests still running after `--shutdown-timeout` seconds (a
/// client stalled in the middle of its upload) are cancelled, and the store closes
/// after the writes in flight.
@main
struct Todos: AsyncParsableCommand, AppArguments {
    static let configuration = CommandConfiguration(
        abstract: "TechEmpower's database tests and a todo API over Strata or SQLite.")

    @Option(help: "The store: strata or sqlite.")
    var engine: Engine = .strata

    @Option(name: .customLong("data"), help: "The data directory (created if missing).")
    var dataPath: String

    @Option(name: .customLong("store"), help: "Where the Strata store lives instead of the data directory: a postgres:// URL puts it on a PostgreSQL server, which several instances may serve.")
    var storeLocation: String?

    @Option(help: "The address to listen on.")
    var hostname = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    @Option(name: .customLong("backup-dir"), help: "Where POST /admin/backup writes backups (created if missing); without it the route is absent.")
    var backupDirectory: String?

    @Option(name: .customLong("max-pending-writes"), help: "How many writes the Strata store may hold at once (queued, running or waiting for their fsync) before it answers 503 to the next (default: the store's, 1024).")
    var maxPendingWrites: Int?

    @Option(name: .customLong("shutdown-timeout"), help: "Seconds a SIGTERM waits for the requests in flight before cancelling them.")
    var shutdownTimeout = 30

    @Option(help: "The log level (trace, debug, info, notice, warning, error, critical).")
    var logLevel: Logger.Level?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535, not \(port)") }
        guard shutdownTimeout >= 1 else { throw ValidationError("--shutdown-timeout must be 1 second or more, not \(shutdownTimeout)") }
    }

    func run() async throws {
        let app = try await buildApplication(self)
        var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger)
        configuration.maximumGracefulShutdownDuration = .seconds(shutdownTimeout)
        try await ServiceGroup(configuration: configuration).run()
    }
}

extension Engine: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
