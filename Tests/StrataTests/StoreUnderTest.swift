import Foundation
import Strata
import StrataLog
import StrataPostgres
import Testing

/// The store type the object-layer suites run on: the segment log, or PostgreSQL when
/// `STRATA_TEST_POSTGRES` names a server (`make test` runs those suites a second time
/// so, against a throwaway server: Tests/Postgres/server.sh). Tests that exercise the
/// segment log itself (its files, its file-system seam, compaction's segments) open
/// their stores directly and say so with ``engineSpecific``.
enum StoreUnderTest {
    /// The server's location, without a schema, when the suites run on PostgreSQL.
    static let postgres: String? = {
        guard let location = ProcessInfo.processInfo.environment["STRATA_TEST_POSTGRES"], !location.isEmpty else { return nil }
        return location
    }()

    static var isPostgres: Bool { postgres != nil }

    /// Disables a test on PostgreSQL: it checks the segment log, not the object layer.
    static var engineSpecific: ConditionTrait {
        .enabled(if: !isPostgres, "checks the segment log's own behaviour")
    }

    /// A new, empty store: in memory on the segment log, a schema of its own on
    /// PostgreSQL.
    static func inMemory(model: ObjectModel, options: StoreOptions = StoreOptions()) throws -> ObjectStore {
        guard let postgres else { return try ObjectStore.inMemory(model: model, options: options) }
        return try open(location: location(postgres, schema: "m" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()),
                        model: model, options: options)
    }

    /// The store at `path`: the directory on the segment log; on PostgreSQL, a schema
    /// named after the path, so that a test that opens a path again opens its store
    /// again. A store over a file system of the test's own stays on the segment log.
    static func open(at path: String, model: ObjectModel, options: StoreOptions = StoreOptions()) throws -> ObjectStore {
        guard let postgres, options.fileSystem == nil, options.storeType == .segmentLog else {
            return try ObjectStore(at: path, model: model, options: options)
        }
        return try open(location: location(postgres, schema: schemaName(for: path)), model: model, options: options)
    }

    static func open(location: String, model: ObjectModel, options: StoreOptions) throws -> ObjectStore {
        #if Postgres
        var options = options
        options.storeType = .postgres
        return try ObjectStore(at: location, model: model, options: options)
        #else
        Issue.record("STRATA_TEST_POSTGRES is set, but the tests were built without the Postgres trait")
        throw StrataError(.invalidArgument, "built without the Postgres trait")
        #endif
    }

    static func location(_ server: String, schema: String) -> String {
        server + (server.contains("?") ? "&" : "?") + "schema=" + schema
    }

    /// A schema name for a path: FNV-1a of its bytes, in hex.
    static func schemaName(for path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "p" + String(hash, radix: 16)
    }
}

extension StoreUnderTest {
    /// How many rounds the PostgreSQL race tests run per context or process
    /// (`STRATA_TEST_RACE_COUNT`; the full figures come from `make postgres-races`).
    static var raceCount: Int {
        ProcessInfo.processInfo.environment["STRATA_TEST_RACE_COUNT"].flatMap(Int.init) ?? 100
    }

    /// The location of a store named `name` on the test server.
    static func location(for name: String) -> String {
        location(postgres ?? "", schema: schemaName(for: name))
    }

    /// Opens the store at a PostgreSQL location.
    static func openLocation(_ location: String, model: ObjectModel, history: Bool = false) throws -> ObjectStore {
        var options = StoreOptions()
        options.historyTracking = history
        return try open(location: location, model: model, options: options)
    }

    /// On PostgreSQL, a digest of the store at `path` (its records, terms, blob
    /// references, metadata, sequence and staging schemas); nil on the segment log,
    /// whose tests compare the directory's files instead.
    static func serverDigest(at path: String) throws -> String? {
        #if Postgres
        guard let postgres else { return nil }
        let records = try PostgresRecordStore(location: location(postgres, schema: schemaName(for: path)), readOnly: true)
        defer { try? records.close() }
        return try records.contentDigest()
        #else
        return nil
        #endif
    }

    /// On PostgreSQL, the bytes the store at `path` keeps its blobs in (the blobs
    /// table, its TOAST included); nil on the segment log.
    static func serverBlobBytes(at path: String) throws -> Int? {
        #if Postgres
        guard let postgres else { return nil }
        let records = try PostgresRecordStore(location: location(postgres, schema: schemaName(for: path)), readOnly: true)
        defer { try? records.close() }
        return Int(records.usage.blobBytes)
        #else
        return nil
        #endif
    }

    /// The staging schemas a migration of the store at `location` made and left.
    static func stagingSchemas(_ location: String) throws -> [String] {
        #if Postgres
        let records = try PostgresRecordStore(location: location, readOnly: true)
        defer { try? records.close() }
        return try records.stagingSchemaNames()
        #else
        return []
        #endif
    }

    /// Ends every server connection that listens for commits (what a network cut or
    /// a server restart does to them).
    static func terminateListeners(_ location: String) throws {
        #if Postgres
        let records = try PostgresRecordStore(location: location, readOnly: true)
        defer { try? records.close() }
        try records.terminateListeningConnections()
        #endif
    }
}

/// `make test`'s PostgreSQL pass sets STRATA_REQUIRE_POSTGRES: a pass that found no
/// server must fail, not skip its suites quietly.
@Suite struct PostgresPassTests {
    @Test func thePostgresPassHasAServer() {
        if ProcessInfo.processInfo.environment["STRATA_REQUIRE_POSTGRES"] == "1" {
            #expect(StoreUnderTest.isPostgres, "STRATA_REQUIRE_POSTGRES is set but STRATA_TEST_POSTGRES names no server")
        }
    }
}
