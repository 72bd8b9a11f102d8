import GRDB
import Hummingbird
import Strata
import Testing
@testable import TodosApp

/// What a client sees for each failure the engines report: the statuses `APIError`
/// documents. A store that is overloaded or going away is 503, so that a load balancer
/// tries elsewhere; a lost race on a key is 409; a request that breaks a rule is 422.
@Suite("Error mapping")
struct ErrorMappingTests {
    static let strataCases: [(StrataError.Code, Int)] = [
        (.objectNotFound, 404), (.notFound, 404),
        (.validationFailed, 422),
        (.conflict, 409), (.uniquenessViolation, 409),
        (.limitExceeded, 503), (.closed, 503), (.readOnly, 503),
        (.invalidArgument, 400),
        (.corrupt, 500), (.io, 500), (.storeLocked, 500),
    ]

    @Test("a store error answers its documented status, with its code in the body", arguments: strataCases)
    func strata(code: StrataError.Code, status: Int) {
        let answer = APIError(StrataError(code, "what went wrong"))
        #expect(answer.status.code == status)
        #expect(answer.code == code.rawValue)
        #expect(answer.message == "what went wrong")
    }

    static let sqliteCases: [(ResultCode, Int, String)] = [
        (.SQLITE_CONSTRAINT_CHECK, 422, "validationFailed"), (.SQLITE_CONSTRAINT_NOTNULL, 422, "validationFailed"),
        (.SQLITE_CONSTRAINT_UNIQUE, 409, "conflict"), (.SQLITE_CONSTRAINT_PRIMARYKEY, 409, "conflict"),
        (.SQLITE_BUSY, 503, "busy"), (.SQLITE_LOCKED, 503, "busy"),
        (.SQLITE_READONLY, 503, "readOnly"), (.SQLITE_FULL, 503, "readOnly"), (.SQLITE_MISUSE, 503, "closed"),
        (.SQLITE_IOERR, 500, "sqlite"),
    ]

    @Test("an SQLite error answers as the same failure of a Strata store does", arguments: sqliteCases)
    func sqlite(result: ResultCode, status: Int, code: String) {
        let answer = APIError(DatabaseError(resultCode: result, message: "what went wrong"))
        #expect(answer.status.code == status)
        #expect(answer.code == code)
    }

    @Test("a cancelled request is 503 and anything unknown 500, without its details")
    func others() {
        #expect(APIError(CancellationError()).status == .serviceUnavailable)
        struct Unexpected: Error { var secret = "a path on the server" }
        let unknown = APIError(Unexpected())
        #expect(unknown.status == .internalServerError)
        #expect(!unknown.message.contains("a path on the server"))
    }
}
