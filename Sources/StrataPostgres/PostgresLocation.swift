#if Postgres
import Foundation
import StrataLog

/// Where a PostgreSQL store lives, read from the location a store is opened at:
///
///     postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE?schema=NAME
///     postgres://USER@/DATABASE?host=/run/postgresql&port=5432&schema=NAME
///
/// The second form reaches the server on its Unix socket (`host` names the socket's
/// directory, as libpq's does). One PostgreSQL schema holds one store; `schema`
/// defaults to `strata`.
package struct PostgresLocation: Sendable, Equatable {
    package enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        case socket(path: String)
    }

    package var endpoint: Endpoint
    package var username: String
    package var password: String?
    package var database: String
    package var schema: String

    /// Whether `location` names a PostgreSQL store rather than a directory.
    package static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    package init(_ location: String) throws {
        guard Self.isPostgres(location), let url = URLComponents(string: location) else {
            throw StrataError(.invalidArgument, "not a PostgreSQL location: expected postgres://user@host:port/database?schema=name")
        }
        let items = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        guard let user = url.user, !user.isEmpty else {
            throw StrataError(.invalidArgument, "a PostgreSQL location names its user: postgres://user@host/database")
        }
        username = user.removingPercentEncoding ?? user
        password = url.password?.removingPercentEncoding
        database = String(url.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw StrataError(.invalidArgument, "a PostgreSQL location names its database: postgres://user@host/database") }
        let port = try items["port"].map { text -> Int in
            guard let port = Int(text), (1...65_535).contains(port) else { throw StrataError(.invalidArgument, "port \(text) is not a port number") }
            return port
        } ?? url.port ?? 5432
        if let directory = items["host"], directory.hasPrefix("/") {
            endpoint = .socket(path: "\(directory)/.s.PGSQL.\(port)")
        } else if let host = url.host, !host.isEmpty {
            endpoint = .tcp(host: host, port: port)
        } else {
            endpoint = .socket(path: "/run/postgresql/.s.PGSQL.\(port)")
        }
        schema = items["schema"] ?? "strata"
        guard Self.isIdentifier(schema) else {
            throw StrataError(.invalidArgument, "schema \"\(schema)\" is not a plain PostgreSQL name: lower-case letters, digits and _, at most 50, not starting with a digit")
        }
    }

    /// The channel the store's commits are announced on: `strata_SCHEMA`, or for a
    /// schema too long for that within PostgreSQL's 63-byte identifiers (a staging
    /// schema of a long name), its first bytes and a hash of the whole name. PostgreSQL
    /// would cut a long channel name in `LISTEN` but refuse it in `pg_notify`.
    var notificationChannel: String {
        let plain = "strata_" + schema
        guard plain.utf8.count > 63 else { return plain }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in schema.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        // 7 + 39 + 1 + at most 16 bytes: within 63. A schema name is ASCII.
        return "strata_" + schema.prefix(39) + "_" + digits
    }

    /// A name that needs no quoting in SQL and leaves room for the staging schemas'
    /// suffix (`_staging1`…) within PostgreSQL's 63 bytes.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 50, !(48...57).contains(first) else { return false }
        return name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
    }

    /// The location as errors and logs show it: without the password.
    package var description: String {
        switch endpoint {
        case .tcp(let host, let port): "postgres://\(username)@\(host):\(port)/\(database)?schema=\(schema)"
        case .socket(let path): "postgres://\(username)@/\(database)?socket=\(path)&schema=\(schema)"
        }
    }
}
#endif
