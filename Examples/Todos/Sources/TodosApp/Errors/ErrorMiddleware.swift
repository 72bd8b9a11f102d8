import Hummingbird
import Logging

/// Turns every error a route throws into an ``APIError``: the status for its code and
/// a JSON body, whichever engine threw it. Errors the API does not expect (500) are
/// logged with what they were; the client sees only `internal`.
///
/// The ``APIError`` is thrown on, not answered here: Hummingbird answers an
/// `HTTPResponseError` with its own response, and its metrics middleware, outside this
/// one, counts it in `hb.request.errors` under its status.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = APIError(error)
            if answer.status == .internalServerError {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            }
            throw answer
        }
    }
}
