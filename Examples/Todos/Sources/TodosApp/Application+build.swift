import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import StrataService

/// What ``buildApplication(_:)`` needs to know: the command line's options, or a test's.
public protocol AppArguments {
    var hostname: String { get }
    var port: Int { get }
    var engine: Engine { get }
    /// The data directory; each engine keeps its own store in it.
    var dataPath: String { get }
    var logLevel: Logger.Level? { get }
    /// Where `POST /admin/backup` writes its backups; nil leaves the route out (404).
    /// The server chooses each backup's name inside it: a request names no path.
    var backupDirectory: String? { get }
    /// Where the Strata store lives when not in the data directory: a `postgres://`
    /// URL puts it on a PostgreSQL server, which several instances may share
    /// (``StrataRepository/storeType(for:)``). Nil keeps it in the data directory.
    var storeLocation: String? { get }
    /// How many writes the Strata store may hold queued, running or waiting for their
    /// fsync before the next is refused with a 503 (`StoreOptions.maxPendingWrites`);
    /// nil keeps the store's default.
    var maxPendingWrites: Int? { get }
}

extension AppArguments {
    public var backupDirectory: String? { nil }
    public var storeLocation: String? { nil }
    public var maxPendingWrites: Int? { nil }
}

/// Builds the application: opens the engine's store, wires the routes over it, and
/// adds the store as a service.
///
/// The store's service is added before Hummingbird's own server service, and a
/// `ServiceGroup` stops its services in reverse order: on SIGTERM the server stops
/// taking connections and drains the requests in flight first, and the store closes
/// last, after the last write it acknowledged.
public func buildApplication(_ arguments: some AppArguments) async throws -> some ApplicationProtocol {
    PrometheusMetrics.bootstrap()
    var logger = Logger(label: "Todos")
    logger.logLevel = arguments.logLevel ?? .info
    if let backupDirectory = arguments.backupDirectory {
        // Created now, so that a directory the process cannot create fails the start
        // rather than the first backup.
        do {
            try FileManager.default.createDirectory(atPath: backupDirectory, withIntermediateDirectories: true)
        } catch {
            throw AppConfigurationError("--backup-dir \(backupDirectory) cannot be used: it is not a directory that can be created or written (\(error.localizedDescription))")
        }
        // A backup cut short by a kill leaves its scratch directory, never a store.
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: backupDirectory)) ?? []).filter { $0.contains(".partial-") }
        if !leftovers.isEmpty {
            logger.notice("backups cut short earlier left scratch directories, which hold no store and may be removed",
                          metadata: ["directory": "\(backupDirectory)", "leftovers": "\(leftovers.sorted())"])
        }
    }
    let configuration = ApplicationConfiguration(
        address: .hostname(arguments.hostname, port: arguments.port),
        serverName: "Todos")
    switch arguments.engine {
    case .strata:
        if arguments.backupDirectory != nil, let location = arguments.storeLocation, StrataRepository.storeType(for: location) != .segmentLog {
            throw AppConfigurationError("--backup-dir backs up a store on the local disk; a store on a server is backed up with the server's tools (pg_dump, base backups)")
        }
        var options = StrataRepository.options
        if let maxPendingWrites = arguments.maxPendingWrites {
            guard maxPendingWrites >= 1 else {
                throw AppConfigurationError("--max-pending-writes must be 1 or more, not \(maxPendingWrites)")
            }
            options.maxPendingWrites = maxPendingWrites
        }
        let repository = try await StrataRepository.open(directory: arguments.dataPath, location: arguments.storeLocation, options: options, logger: logger)
        var app = Application(router: buildRouter(repository: repository, backupDirectory: arguments.backupDirectory), server: httpServer, configuration: configuration, logger: logger)
        app.addServices(StoreService(store: repository.store, logger: logger))
        return app
    case .sqlite:
        if arguments.storeLocation != nil {
            throw AppConfigurationError("--store names a Strata store's location; SQLite keeps Todos.sqlite in the data directory")
        }
        if arguments.maxPendingWrites != nil {
            throw AppConfigurationError("--max-pending-writes bounds the Strata store's writes; SQLite's writers wait for its pool's writer instead")
        }
        let repository = try await SQLiteRepository.open(directory: arguments.dataPath, logger: logger)
        var app = Application(router: buildRouter(repository: repository, backupDirectory: arguments.backupDirectory), server: httpServer, configuration: configuration, logger: logger)
        app.addServices(SQLiteService(repository: repository, logger: logger))
        return app
    }
}

/// HTTP/1.1 with an idle timeout: a connection that sends nothing for 30 seconds —
/// between requests, or after an answer given before its body was read (a 413) — is
/// closed, rather than held open for as long as its client keeps it.
let httpServer: HTTPServerBuilder = .http1(configuration: .init(idleTimeout: .seconds(30)))

/// The routes, the same for every engine.
///
/// `backupDirectory` adds `POST /admin/backup`, which writes into it; nil leaves the
/// route out.
func buildRouter(repository: some Repository, backupDirectory: String? = nil) -> Router<AppRequestContext> {
    // HEAD answers wherever GET does, as the `Allow` headers of 405 answers say.
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    // Outermost first: the metrics see the status the error middleware answered.
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ErrorMiddleware())
    BenchmarkController(repository: repository).addRoutes(to: router)
    TodoController(repository: repository).addRoutes(to: router.group("todos"))
    OperationsController(repository: repository, backups: backupDirectory.map { BackupNamer(directory: $0) }).addRoutes(to: router)
    return router
}

/// Options that cannot go together, refused before the server starts.
public struct AppConfigurationError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}
