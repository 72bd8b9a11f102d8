import Hummingbird
import Prometheus

/// The routes an orchestrator and a scraper call: liveness, readiness, metrics.
struct OperationsController<Store: Repository> {
    let repository: Store

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("health", use: health)
        router.get("ready", use: ready)
        router.get("metrics", use: metrics)
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
    /// read-only (after an I/O error) or closing, so that a balancer sends writes
    /// elsewhere. Reads the store's state; waits for nothing.
    @Sendable func ready(request: Request, context: AppRequestContext) -> EditedResponse<Status> {
        switch repository.readiness {
        case .ready:
            EditedResponse(status: .ok, response: Status(status: "ready"))
        case .unavailable(let reason):
            EditedResponse(status: .serviceUnavailable, response: Status(status: "unavailable", reason: reason))
        }
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
