import Hummingbird
import Logging
import Metrics

/// Answers every error a route throws as an ``APIError``: the status for its code
/// and a JSON body, whichever engine threw it. Errors the API does not expect (500)
/// are logged with what they were; the client sees only `internal`.
///
/// The answer is a response, so that Hummingbird's metrics middleware, outside this
/// one, times it like any other; that middleware counts `hb.request.errors` only for
/// errors thrown through it, so the errors answered here are counted here, in the same
/// series.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = APIError(error)
            if answer.status == .internalServerError {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            }
            Counter(label: "hb.request.errors", dimensions: [
                ("http.route", context.endpointPath ?? "NotFound"),
                ("http.request.method", request.method.description),
                ("error.type", answer.status.code.description),
            ]).increment()
            return try answer.response(from: request, context: context)
        }
    }
}
