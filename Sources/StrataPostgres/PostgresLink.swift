#if Postgres
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import StrataLog

/// One connection to the server, used synchronously: the record store's protocol is
/// synchronous, and the object layer calls it from its own threads (the async API's
/// lanes), so a call waits on its query's future there and never on an event loop.
final class PostgresLink: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    private init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    static func connect(to location: PostgresLocation, logger: Logger) throws -> PostgresLink {
        let configuration: PostgresConnection.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            configuration = PostgresConnection.Configuration(host: host, port: port, username: location.username, password: location.password,
                                                             database: location.database, tls: .disable)
        case .socket(let path):
            configuration = PostgresConnection.Configuration(unixSocketPath: path, username: location.username, password: location.password,
                                                             database: location.database)
        }
        do {
            let connection = try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                                                            id: nextID.add(1), logger: logger).wait()
            return PostgresLink(connection: connection, logger: logger)
        } catch {
            throw PostgresFailure.error(error, doing: "connect to \(location.description)")
        }
    }

    private static let nextID = Counter()

    var isClosed: Bool { connection.isClosed }

    /// Runs one statement and collects its rows.
    @discardableResult
    func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> PostgresQueryResult {
        do {
            return try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
        } catch {
            throw PostgresFailure.error(error, doing: sql)
        }
    }

    func close() {
        _ = try? connection.close().wait()
    }
}

/// A thread-safe counter for connection ids.
final class Counter: Sendable {
    private let value = Locked(0)
    func add(_ n: Int) -> Int { value.withLock { $0 += n; return $0 } }
}

/// PostgreSQL's errors as the store's: the server's message and SQLSTATE kept.
enum PostgresFailure {
    static func error(_ error: any Error, doing what: String) -> StrataError {
        if let error = error as? StrataError { return error }
        if let error = error as? PSQLError {
            let message = error.serverInfo?[.message] ?? "\(error.code)"
            var context = ["statement": String(what.prefix(200))]
            if let state = error.serverInfo?[.sqlState] { context["sqlState"] = state }
            return StrataError(.io, "PostgreSQL: \(message)", context: context)
        }
        return StrataError(.io, "PostgreSQL: \(error)", context: ["statement": String(what.prefix(200))])
    }
}

extension ByteBuffer {
    /// The buffer's readable bytes as an array.
    var bytes: [UInt8] { Array(readableBytesView) }
}

extension PostgresBindings {
    mutating func appendBytes(_ bytes: [UInt8]) {
        append(ByteBuffer(bytes: bytes))
    }
}
#endif
