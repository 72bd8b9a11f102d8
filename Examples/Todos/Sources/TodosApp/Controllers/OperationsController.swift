import Foundation
import Hummingbird
import Prometheus

/// The routes an orchestrator, a scraper and an operator call: liveness, readiness,
/// metrics, and backups when the server was started with a backup directory.
struct OperationsController<Store: Repository> {
    let repository: Store
    /// Names the backups; nil (no `--backup-dir`) leaves `POST /admin/backup` out.
    var backups: BackupNamer? = nil

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("health", use: health)
        router.get("ready", use: ready)
        router.get("metrics", use: metrics)
        for path in ["health", "ready", "metrics"] {
            router.routes(RouterPath(path), allowing: [.get])
        }
        if backups != nil {
            router.post("admin/backup", use: backup)
            router.routes("admin/backup", allowing: [.post])
        }
    }

    struct Status: ResponseEncodable {
        var status: String
        var reason: String?
    }

    /// Liveness: 200 whenever the process answers at all. It touches no store, so a
    /// saturated writer cannot make a live process look dead and get it restarted.
    @Sendable func health(request: Request, context: AppRequestContext) -> Status {
        Status(status: "ok")
    }

    /// Readiness: 200 while the store is open and takes writes, 503 once it is
    /// read-only (after an I/O error) or closed, so that a balancer sends writes
    /// elsewhere. Reads the store's state; waits for nothing. A server shutting down
    /// stops listening before its store closes: a probe then finds no listener.
    @Sendable func ready(request: Request, context: AppRequestContext) -> EditedResponse<Status> {
        switch repository.readiness {
        case .ready:
            EditedResponse(status: .ok, response: Status(status: "ready"))
        case .unavailable(let reason):
            EditedResponse(status: .serviceUnavailable, response: Status(status: "unavailable", reason: reason))
        }
    }

    /// An online backup into a new directory the server names in its backup directory;
    /// 201 with where it is and what it holds once it is on disk. The store goes on
    /// serving meanwhile, and every write acknowledged before the request is in the
    /// copy. The request takes no body and names no path. Errors as every route's
    /// (the store closing 503, an I/O failure 500), and 500 `backupDirectoryMissing`
    /// when the backup directory is gone.
    @Sendable func backup(request: Request, context: AppRequestContext) async throws -> EditedResponse<BackupSummary> {
        guard let backups else { throw APIError.notFound("the route") }
        // The backup directory the server was started with, gone (removed or replaced
        // under it): the server's fault, not the request's, so not a 404 — and the
        // same answer whichever engine would have failed to write into it.
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: backups.directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            context.logger.error("backup failed: the backup directory is missing", metadata: ["directory": "\(backups.directory)"])
            throw APIError(status: .internalServerError, code: "backupDirectoryMissing",
                           message: "the server's backup directory \(backups.directory) is not a directory any more")
        }
        let summary = try await repository.backup(into: backups.next())
        context.logger.info("backed up the store", metadata: [
            "path": "\(summary.path)", "sequence": "\(summary.sequence)",
            "files": "\(summary.files)", "bytes": "\(summary.bytes)",
        ])
        return EditedResponse(status: .created, response: summary)
    }

    /// Prometheus's text exposition of every metric of the process.
    @Sendable func metrics(request: Request, context: AppRequestContext) -> Response {
        let bytes = PrometheusMetrics.registry.emitToBuffer()
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .contentLength: String(bytes.count)],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
