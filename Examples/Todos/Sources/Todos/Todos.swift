import ArgumentParser
import Hummingbird
import Logging
import TodosApp

/// `Todos --engine strata|sqlite --data PATH [--store LOCATION] [--hostname 127.0.0.1]
/// [--port 8080] [--backup-dir DIR] [--max-pending-writes N]`
///
/// Serves until SIGTERM or SIGINT, then drains the requests in flight, closes the
/// store and exits 0.
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

    @Option(help: "The log level (trace, debug, info, notice, warning, error, critical).")
    var logLevel: Logger.Level?

    func run() async throws {
        let app = try await buildApplication(self)
        try await app.runService()
    }
}

extension Engine: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
