import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Strata
import StrataPostgres
import Testing
@testable import TodosApp

/// The service with its Strata store on a PostgreSQL server, switched by the store's
/// location alone (`--store postgres://…`): the same routes, and several instances
/// serving one store. `STRATA_TEST_POSTGRES` names a server without a schema (`make
/// test` starts a throwaway one); each test makes a schema of its own and drops it.
/// Without a server these tests do not run, and `STRATA_REQUIRE_POSTGRES=1` makes
/// that a failure.
@Suite("The service on PostgreSQL", .serialized, .enabled(if: PostgresServer.location != nil))
struct PostgresServiceTests {
    @Test("the todo API, a live server over a store on the server")
    func todoAPI() async throws {
        try await PostgresServer.withStore { directory, store in
            let app = try await buildApplication(TestArguments(engine: .strata, dataPath: directory, storeLocation: store))
            try await app.test(.live) { client in
                let created = try await client.createTodo("move to the server", order: 1)
                try await client.execute(uri: "/todos/\(created.id)", method: .get) { response in
                    #expect(response.status == .ok)
                    let todo = try response.decoded(as: Todo.self)
                    #expect(todo == created)
                }
                try await client.execute(uri: "/todos/\(created.id)", method: .patch, headers: jsonHeaders, body: try jsonBody(TodoPatch(completed: true))) { response in
                    #expect(response.status == .ok)
                    let todo = try response.decoded(as: Todo.self)
                    #expect(todo.completed == true)
                }
                let second = try await client.createTodo("keep the model")
                #expect(try await client.allTodos().map(\.id) == [created.id, second.id])
                try await client.execute(uri: "/todos/\(created.id)", method: .delete) { response in
                    #expect(response.status == .noContent)
                }
                try await client.execute(uri: "/todos/\(created.id)", method: .get) { response in
                    #expect(response.status == .notFound)
                }
                try await client.execute(uri: "/todos", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"title":""}"#)) { response in
                    #expect(response.status == .unprocessableContent)
                }
                try await client.execute(uri: "/db", method: .get) { response in
                    #expect(response.status == .ok)
                }
                try await client.execute(uri: "/ready", method: .get) { response in
                    #expect(response.status == .ok)
                }
                try await client.execute(uri: "/metrics", method: .get) { response in
                    #expect(String(buffer: response.body).contains("db_client_operation_duration"))
                }
                #expect(try await client.allTodos().map(\.id) == [second.id])
            }
        }
    }

    /// Two instances of the service, each with its own data directory, on one store:
    /// what one acknowledges the other reads, and both post at once without losing or
    /// sharing an id.
    @Test("two instances serve one store: each reads and changes what the other wrote, and their concurrent posts all land")
    func twoInstances() async throws {
        try await PostgresServer.withStore { directory, store in
            let first = try await buildApplication(TestArguments(engine: .strata, dataPath: directory + "/a", storeLocation: store))
            let second = try await buildApplication(TestArguments(engine: .strata, dataPath: directory + "/b", storeLocation: store))
            try await first.test(.live) { one in
                try await second.test(.live) { other in
                    let created = try await one.createTodo("posted to the first")
                    try await other.execute(uri: "/todos/\(created.id)", method: .get) { response in
                        #expect(response.status == .ok)
                        let todo = try response.decoded(as: Todo.self)
                        #expect(todo == created)
                    }
                    try await other.execute(uri: "/todos/\(created.id)", method: .patch, headers: jsonHeaders, body: try jsonBody(TodoPatch(title: "renamed by the second"))) { response in
                        #expect(response.status == .ok)
                    }
                    try await one.execute(uri: "/todos/\(created.id)", method: .get) { response in
                        let todo = try response.decoded(as: Todo.self)
                        #expect(todo.title == "renamed by the second")
                    }

                    let portOne = try #require(one.port), portOther = try #require(other.port)
                    async let postedOne = LoadRun.postTodos(port: portOne, clients: 8, maximum: 400, progress: LoadRun.Progress())
                    async let postedOther = LoadRun.postTodos(port: portOther, clients: 8, maximum: 400, progress: LoadRun.Progress())
                    let posted = try await postedOne + postedOther
                    #expect(posted.count >= 800)
                    #expect(Set(posted.map(\.id)).count == posted.count, "an id was given out twice")
                    let listed = Dictionary(uniqueKeysWithValues: try await other.allTodos().map { ($0.id, $0) })
                    for todo in posted {
                        #expect(listed[todo.id] == todo, "todo \(todo.id) acknowledged with 201")
                    }
                    #expect(listed.count == posted.count + 1)
                }
            }
        }
    }

    @Test("World is seeded once, and updates are there after a restart")
    func restart() async throws {
        try await PostgresServer.withStore { directory, store in
            let arguments = TestArguments(engine: .strata, dataPath: directory, storeLocation: store)
            let written = try await buildApplication(arguments).test(.router) { client in
                try await client.execute(uri: "/updates?queries=20", method: .get) { response in
                    #expect(response.status == .ok)
                    return try response.decoded(as: [World].self)
                }
            }
            #expect(written.count == 20)
            let repository = try await StrataRepository.open(directory: directory, location: store, logger: Logger(label: "TodosTests"))
            let count = try await repository.store.read { try $0.count(for: FetchRequest(entityName: "World")) }
            #expect(count == World.count)
            // Later rows of the same request win, as they would in one transaction.
            let last = Dictionary(written.map { ($0.id, $0.randomNumber) }, uniquingKeysWith: { _, later in later })
            for (id, number) in last {
                #expect(try await repository.world(id: id)?.randomNumber == number, "World \(id)")
            }
            try await repository.store.close()
        }
    }

    @Test("a backup directory with a store on a server, and a store location for SQLite, are refused at start")
    func refusedOptions() async throws {
        try await PostgresServer.withStore { directory, store in
            await #expect(throws: AppConfigurationError.self) {
                _ = try await buildApplication(TestArguments(engine: .strata, dataPath: directory, backupDirectory: directory + "/backups", storeLocation: store))
            }
            await #expect(throws: AppConfigurationError.self) {
                _ = try await buildApplication(TestArguments(engine: .sqlite, dataPath: directory, storeLocation: store))
            }
        }
    }

    @Test("a server that cannot be reached fails the start with the store's error")
    func unreachable() async throws {
        try await withTemporaryDirectory { directory in
            let missing = "postgres://strata@/strata_test?host=\(directory)&port=1&schema=nowhere"
            await #expect(throws: StrataError.self) {
                _ = try await buildApplication(TestArguments(engine: .strata, dataPath: directory, storeLocation: missing))
            }
        }
    }
}

@Suite("PostgreSQL server for the service")
struct PostgresServerRequired {
    @Test("make test's PostgreSQL pass has a server")
    func required() {
        if ProcessInfo.processInfo.environment["STRATA_REQUIRE_POSTGRES"] == "1" {
            #expect(PostgresServer.location != nil, "STRATA_REQUIRE_POSTGRES is set but STRATA_TEST_POSTGRES names no server")
        }
    }
}

/// The server the PostgreSQL tests use.
enum PostgresServer {
    /// `STRATA_TEST_POSTGRES`: a location without a schema.
    static var location: String? {
        guard let location = ProcessInfo.processInfo.environment["STRATA_TEST_POSTGRES"], !location.isEmpty else { return nil }
        return location
    }

    /// Runs `body` with a new data directory and the location of a new store in a
    /// schema of its own, dropped afterwards.
    static func withStore<T>(_ body: (_ directory: String, _ store: String) async throws -> T) async throws -> T {
        let server = try #require(location)
        let schema = "todos_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let store = server + (server.contains("?") ? "&" : "?") + "schema=" + schema
        defer { try? PostgresRecordStore(location: store).dropStore() }
        return try await withTemporaryDirectory { directory in try await body(directory, store) }
    }
}
