import Foundation
import GRDB
import Hummingbird
import NIOCore
import NIOHTTP1
import Strata

/// An error as the API answers it: an HTTP status and a JSON body
/// `{"error": code, "message": …}`, where `code` is the store's error code
/// (`objectNotFound`, `validationFailed`, `limitExceeded`, …) or the HTTP one
/// (`badRequest`).
///
/// ``ErrorMiddleware`` turns whatever a route throws into one, so that both engines
/// answer the same failure the same way.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Headers the answer carries besides its content type (`Allow` on a 405).
    public var headers: HTTPFields

    public init(status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// 400: the request itself is malformed (body, id or query); nothing was changed.
    static func badRequest(_ message: String) -> APIError {
        APIError(status: .badRequest, code: "badRequest", message: message)
    }

    /// 404 for something named in the request.
    static func notFound(_ what: String) -> APIError {
        APIError(status: .notFound, code: "notFound", message: "\(what) does not exist")
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONEncoder().encode(Body(error: code, message: message))
        var fields = headers
        // Overloaded, busy or closing: a client may try again shortly (here or on
        // another instance).
        if status == .serviceUnavailable, fields[.retryAfter] == nil { fields[.retryAfter] = "1" }
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = String(body.count)
        return Response(
            status: status,
            headers: fields,
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private struct Body: Encodable {
        var error: String
        var message: String
    }
}

extension APIError {
    /// What `error` means to a client.
    ///
    /// - Strata: `notFound`/`objectNotFound` 404, `validationFailed` 422, `conflict`
    ///   and `uniquenessViolation` 409, `limitExceeded`/`closed`/`readOnly` 503 (the store is overloaded or
    ///   going away: try again elsewhere or later), `invalidArgument` 400, else 500.
    /// - SQLite: a violated CHECK or NOT NULL 422, a violated UNIQUE 409,
    ///   `SQLITE_BUSY`/`SQLITE_LOCKED`/`SQLITE_READONLY`/`SQLITE_FULL` and a closed
    ///   database (`SQLITE_MISUSE`) 503, else 500.
    /// - An HTTP/1.1 parser error met while the body is read 400.
    /// - Hummingbird's `HTTPError` keeps its status (a body that does not decode and an
    ///   id that does not parse are 400 there).
    public init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as StrataError:
            self.init(status: Self.status(for: error.code), code: error.code.rawValue, message: error.message)
        case let error as DatabaseError:
            self.init(sqlite: error)
        case let error as HTTPError:
            self.init(status: error.status, code: Self.code(for: error.status), message: error.body ?? error.status.reasonPhrase)
        case let error as HTTPParserError:
            // The request broke HTTP/1.1 while its body was read (a chunk size that is
            // not one, a body cut short by a client that went away): the client's fault.
            self = .badRequest("the request is not valid HTTP/1.1: \(error)")
        case is NIOTooManyBytesError:
            self.init(status: .contentTooLarge, code: "contentTooLarge", message: "the body is larger than a request may be (2 MiB)")
        case let error as any HTTPResponseError:
            self.init(status: error.status, code: Self.code(for: error.status), message: error.status.reasonPhrase)
        case is DecodingError:
            self = .badRequest("the body is not valid JSON for this route")
        case is CancellationError:
            self.init(status: .serviceUnavailable, code: "cancelled", message: "the request was cancelled")
        default:
            self.init(status: .internalServerError, code: "internal", message: "internal error")
        }
    }

    static func status(for code: StrataError.Code) -> HTTPResponse.Status {
        switch code {
        case .notFound, .objectNotFound: .notFound
        case .validationFailed: .unprocessableContent
        case .conflict, .uniquenessViolation: .conflict
        case .limitExceeded, .closed, .readOnly: .serviceUnavailable
        case .invalidArgument: .badRequest
        default: .internalServerError
        }
    }

    private init(sqlite error: DatabaseError) {
        let message = error.message ?? "\(error.resultCode)"
        switch error.extendedResultCode {
        case .SQLITE_CONSTRAINT_CHECK, .SQLITE_CONSTRAINT_NOTNULL:
            self.init(status: .unprocessableContent, code: "validationFailed", message: message)
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY:
            self.init(status: .conflict, code: "conflict", message: message)
        default:
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                self.init(status: .serviceUnavailable, code: "busy", message: message)
            case .SQLITE_READONLY, .SQLITE_FULL:
                self.init(status: .serviceUnavailable, code: "readOnly", message: message)
            case .SQLITE_MISUSE:
                self.init(status: .serviceUnavailable, code: "closed", message: message)
            default:
                self.init(status: .internalServerError, code: "sqlite", message: message)
            }
        }
    }

    private static func code(for status: HTTPResponse.Status) -> String {
        switch status {
        case .badRequest: "badRequest"
        case .notFound: "notFound"
        case .methodNotAllowed: "methodNotAllowed"
        case .contentTooLarge: "contentTooLarge"
        case .unsupportedMediaType: "unsupportedMediaType"
        default: "http\(status.code)"
        }
    }
}
