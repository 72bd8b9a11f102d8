import Logging
import ServiceLifecycle

/// Holds the SQLite pool open for the application's life and closes it on graceful
/// shutdown, after the HTTP server has stopped (the role `StoreService` plays for a
/// Strata store).
struct SQLiteService: Service {
    let repository: SQLiteRepository
    let logger: Logger

    func run() async throws {
        // Returns on graceful shutdown, throws on cancellation: close in both cases.
        try? await gracefulShutdown()
        do {
            try repository.close()
            logger.info("closed the SQLite database")
        } catch {
            logger.error("closing the SQLite database failed", metadata: ["error": "\(error)"])
            throw error
        }
    }
}
